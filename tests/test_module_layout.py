"""Modules split into packages by family (issue 13) keep every import path:
ember.optim.lr_scheduler and ember.nn.functional offer every name they offered as single
modules (and torch's), grow no public names, and F's __torch_function__ check still hands
a mode the F function itself, as torch's does."""
import pytest

import ember
import ember.nn.functional as F
from ember.optim import lr_scheduler

torch = pytest.importorskip("torch")

# What each offered as one module (its imports of the standard library aside).
LR_SCHEDULER_NAMES = [
    "ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
    "EPOCH_DEPRECATION_WARNING", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR",
    "MultiStepLR", "MultiplicativeLR", "OneCycleLR", "Optimizer", "PolynomialLR",
    "ReduceLROnPlateau", "SequentialLR", "StepLR", "Tensor", "_LRScheduler",
]
FUNCTIONAL_NAMES = [
    "_REDUCTIONS", "_canonical_mask", "_check_batch_size", "_check_probability",
    "_elementwise_loss", "_embedding_renorm_", "_feature_dropout", "_in_projection",
    "_in_projection_packed", "_mha_shape_check", "_none_or_dtype", "_override",
    "_reduction_enum", "_reduction_string", "_softmax_dim", "_squared", "_static_projection",
    "adaptive_avg_pool2d", "avg_pool2d", "batch_norm", "bilinear", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "conv1d", "conv2d", "cross_entropy", "dropout",
    "dropout1d", "dropout2d", "elu", "elu_", "embedding", "gelu", "group_norm",
    "handle_torch_function", "hardtanh", "hardtanh_", "l1_loss", "layer_norm", "leaky_relu",
    "leaky_relu_", "linear", "log_softmax", "max_pool2d", "max_pool2d_with_indices",
    "mse_loss", "multi_head_attention_forward", "nll_loss", "normalize", "one_hot", "pad",
    "relu", "relu_", "scaled_dot_product_attention", "sigmoid", "silu", "softmax", "softplus",
    "tanh", "threshold", "threshold_",
]


@pytest.mark.parametrize(("package", "names"), [(lr_scheduler, LR_SCHEDULER_NAMES),
                                                 (F, FUNCTIONAL_NAMES)])
def test_every_name_is_still_offered_and_no_public_one_is_added(package, names):
    assert [name for name in names if not hasattr(package, name)] == []
    public = {name for name in dir(package) if not name.startswith("_")}
    torchs = torch.nn.functional if package is F else torch.optim.lr_scheduler
    added = public - set(names)
    assert added <= set(dir(torchs)), "the family modules must stay private; new names are torch's"


def test_the_names_are_torchs():
    assert sorted(lr_scheduler.__all__) == sorted(set(torch.optim.lr_scheduler.__all__)
                                                  - {"CyclicLR"})  # ember has no CyclicLR
    for name in (*lr_scheduler.__all__, "_LRScheduler", "Optimizer"):
        assert getattr(lr_scheduler, name).__name__ == \
            getattr(torch.optim.lr_scheduler, name).__name__
    assert lr_scheduler.EPOCH_DEPRECATION_WARNING == \
        torch.optim.lr_scheduler.EPOCH_DEPRECATION_WARNING
    assert issubclass(lr_scheduler._LRScheduler, lr_scheduler.LRScheduler)
    assert [name for name in F.__all__ if not hasattr(torch.nn.functional, name)] == []


def test_torch_function_mode_sees_the_F_function_of_every_family():
    def calls(lib):
        seen = []

        class Recorder(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func)
                return func(*args, **(kwargs or {}))

        functional = lib.nn.functional
        x, w, image, indices = (lib.ones(2, 3), lib.ones(4, 3, 3), lib.ones(1, 1, 2, 3),
                                lib.tensor([1, 0]))
        with Recorder():
            functional.relu(x)                                    # activation
            functional.dropout(x, 0.0)                            # dropout
            functional.bilinear(x, x, w)                          # linear
            functional.mse_loss(x, x)                             # loss
            functional.layer_norm(x, (3,))                        # normalization
            functional.avg_pool2d(image, 1)                       # pooling
            functional.embedding(indices, x)                      # sparse
        return seen, functional

    ember_seen, ember_F = calls(ember)
    torch_seen, torch_F = calls(torch)
    assert [f.__name__ for f in ember_seen] == [f.__name__ for f in torch_seen]
    assert all(f is getattr(ember_F, f.__name__) for f in ember_seen)
    assert all(f is getattr(torch_F, f.__name__) for f in torch_seen)


def test_module_py_keeps_module_and_the_global_hooks():
    import torch.nn.modules.module as torch_module

    from ember.nn.modules import module
    assert module.Module.__module__ == "ember.nn.modules.module"  # as torch's, one class there
    assert ember.nn.Module is module.Module
    names = ["Module", "register_module_forward_hook", "register_module_forward_pre_hook",
             "_global_forward_hooks", "_global_forward_pre_hooks",
             "_global_forward_hooks_with_kwargs", "_global_forward_hooks_always_called",
             "_IncompatibleKeys", "_addindent"]
    assert [name for name in names if not hasattr(torch_module, name)] == []
    assert [name for name in names if not hasattr(module, name)] == []

    def calls(lib, mod):
        log = []
        layer = lib.nn.Identity()
        handles = [mod.register_module_forward_pre_hook(lambda m, a: log.append("pre")),
                   mod.register_module_forward_hook(lambda m, a, k, o: log.append(("post", k)),
                                                    with_kwargs=True)]
        layer.register_forward_hook(lambda m, a, o: log.append("own"))
        try:
            tables = (len(mod._global_forward_pre_hooks), len(mod._global_forward_hooks))
            layer(lib.ones(1))
        finally:
            for handle in handles:
                handle.remove()
        return log, tables, len(mod._global_forward_hooks)

    assert calls(ember, module) == calls(torch, torch_module) == (
        ["pre", ("post", {}), "own"], (1, 1), 0)
