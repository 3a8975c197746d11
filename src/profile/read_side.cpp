// placeholder: profile/read_side (not yet written)
