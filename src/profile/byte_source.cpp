// placeholder: profile/byte_source (not yet written)
