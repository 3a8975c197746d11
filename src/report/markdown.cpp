// placeholder: report/markdown (not yet written)
