"""`ember.onnx`: importable, so that scripts which only import torch.onnx run; exporting
is not built yet (it will come from FX graphs)."""


def export(*args, **kwargs):
    raise NotImplementedError("ember.onnx.export is not implemented yet: ember cannot write "
                              "ONNX files (save the weights with ember.save instead)")


def is_in_onnx_export() -> bool:
    return False
