// placeholder: profile/kineto_trace (not yet written)
