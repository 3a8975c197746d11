// placeholder: util/units (not yet written)
