// placeholder: compare/metric_comparison (not yet written)
