// placeholder: profile/device_attribution (not yet written)
