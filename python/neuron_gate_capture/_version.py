"""The helper's version, recorded in every manifest as versions.neuron_gate_capture."""

__version__ = "0.1.0"
