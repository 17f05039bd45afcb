"""The Slice family: ONNX Slice, OpenVINO Slice and StridedSlice, torch.narrow and basic slicing of
torch and NumPy, tf.slice and tf.strided_slice."""
