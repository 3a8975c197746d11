// placeholder: compare/verdict (not yet written)
