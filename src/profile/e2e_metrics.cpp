// placeholder: profile/e2e_metrics (not yet written)
