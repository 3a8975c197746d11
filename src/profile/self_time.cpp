// placeholder: profile/self_time (not yet written)
