"""Model builders for adapters (not used by the engine): ONNX graphs of the Split versions and
torch modules of the torch ops, each exactly as a case states it. They import their frameworks
lazily, so the engine installs without onnx or torch.
"""
