// placeholder: util/spellcheck (not yet written)
