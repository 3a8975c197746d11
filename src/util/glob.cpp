// placeholder: util/glob (not yet written)
