// placeholder: profile/discover (not yet written)
