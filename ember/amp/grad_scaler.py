"""GradScaler: loss scaling for float16 training, as torch.amp.GradScaler.

    >>> model = nn.Linear(2, 1)
    >>> optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    >>> loss = model(ember.ones(1, 2)).sum()
    >>> scaler = ember.amp.GradScaler("cpu", init_scale=2.0**16)
    >>> scaler.scale(loss).backward()   # gradients are scaled by 65536
    >>> model.bias.grad
    tensor([65536.])
    >>> scaler.step(optimizer)          # unscales; skips the step if any grad is inf/NaN
    >>> scaler.update()                 # backs the scale off after a skip, grows it after
    ...                                 # `growth_interval` clean steps
    >>> model.bias.grad, scaler.get_scale()
    (tensor([1.]), 65536.0)

The scale and the growth tracker are 0-d tensors (float32, int32) made on the device of the
first scaled output. Each optimizer goes READY -> UNSCALED -> STEPPED between updates.
"""
from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable
from enum import Enum

import numpy as np

import ember


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_NOT_SCALED = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")


class GradScaler:
    """`GradScaler(device="cuda", init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)`. A disabled scaler passes everything through."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not ember.cuda.is_available():
            warnings.warn("ember.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if not growth_factor > 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if not backoff_factor < 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def is_enabled(self) -> bool:
        return self._enabled

    # ----------------------------------------------------------------- scaling
    def scale(self, outputs):
        """outputs * scale; tensors inside lists/tuples (nested) are scaled too."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, ember.Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale
        if isinstance(outputs, Iterable):
            scaled = map(self.scale, outputs)
            return type(outputs)(scaled) if isinstance(outputs, (list, tuple)) else scaled
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _lazy_init(self, device):
        self._scale = ember.full((), self._init_scale, dtype=ember.float32, device=device)
        self._growth_tracker = ember.full((), self._init_growth_tracker, dtype=ember.int32,
                                          device=device)

    def _check_initialised(self, funcname: str):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  {_NOT_SCALED}")
        return self._scale, self._growth_tracker

    # ----------------------------------------------------------------- unscaling
    def unscale_(self, optimizer) -> None:
        """Divides this optimizer's gradients by the scale in place, once per step, and
        records whether any of them is inf or NaN."""
        if not self._enabled:
            return
        self._check_initialised("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # 1/scale in float64, then rounded to float32, like torch
        inv_scale = float(np.float32(1.0 / float(self._scale.item())))
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale)
        state["stage"] = OptState.UNSCALED

    def _unscale_grads_(self, optimizer, inv_scale: float, allow_fp16: bool = False) -> dict:
        found = {}
        with ember.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype is ember.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    device = str(grad.device)
                    bad = not bool(ember.isfinite(grad).all())
                    found[device] = found.get(device, False) or bad
                    grad.mul_(inv_scale)
        return {d: ember.tensor(1.0 if bad else 0.0, device=d) for d, bad in found.items()}

    # ----------------------------------------------------------------- stepping
    def step(self, optimizer, *args, **kwargs):
        """Unscales (unless unscale_ ran) and calls optimizer.step() unless a gradient is
        inf/NaN; returns what step returned, or None when skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_initialised("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Backs the scale off if any optimizer saw inf/NaN, else counts a clean step and
        grows the scale every `growth_interval` of them; or sets `new_scale`."""
        if not self._enabled:
            return
        scale, _ = self._check_initialised("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element ember.Tensor with "
                          "requires_grad=False.")
                if not (isinstance(new_scale, ember.Tensor) and new_scale.numel() == 1
                        and not new_scale.requires_grad
                        and new_scale.device.type == scale.device.type):
                    raise AssertionError(reason)
                scale.copy_(new_scale.reshape(()))
        else:
            found = [f for st in self._per_optimizer_states.values()
                     for f in st["found_inf_per_device"].values()]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(sum(float(f.item()) for f in found) > 0)
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _update_scale(self, found_inf: bool) -> None:
        """torch's _amp_update_scale_: the new scale is computed in float32."""
        scale, tracker = self._scale, self._growth_tracker
        if found_inf:
            scale.mul_(self._backoff_factor)
            tracker.fill_(0)
            return
        successful = int(tracker.item()) + 1
        if successful == self._growth_interval:
            grown = scale * self._growth_factor
            if math.isfinite(float(grown.item())):
                scale.copy_(grown)
            tracker.fill_(0)
        else:
            tracker.fill_(successful)

    # ----------------------------------------------------------------- accessors
    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def state_dict(self) -> dict:
        """{"scale", "growth_factor", "backoff_factor", "growth_interval",
        "_growth_tracker"} ({} when disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
