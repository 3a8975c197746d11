// placeholder: compare/conditions (not yet written)
