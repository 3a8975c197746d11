// placeholder: profile/trace_samples (not yet written)
