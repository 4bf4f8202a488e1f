"""Packed sequences for the recurrent layers, as torch.nn.utils.rnn.

A PackedSequence stores a batch of variable-length sequences time step by time step:
``data`` holds step 0 of every sequence, then step 1 of those still running, and so on;
``batch_sizes[t]`` counts the sequences running at step t (sorted longest first)::

    >>> from ember.nn.utils.rnn import pack_sequence, pad_packed_sequence
    >>> packed = pack_sequence([ember.tensor([1, 2, 3]), ember.tensor([4, 5])])
    >>> packed.data.tolist(), packed.batch_sizes.tolist()
    ([1, 4, 2, 5, 3], [2, 2, 1])
    >>> pad_packed_sequence(packed)[0].tolist()
    [[1, 4], [2, 5], [3, 0]]
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import NamedTuple

import ember

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence",
    "pad_packed_sequence", "pad_sequence", "unpack_sequence", "unpad_sequence",
]


class _PackedSequenceBase(NamedTuple):
    data: ember.Tensor
    batch_sizes: ember.Tensor
    sorted_indices: ember.Tensor | None
    unsorted_indices: ember.Tensor | None


class PackedSequence(_PackedSequenceBase):
    """(data, batch_sizes, sorted_indices, unsorted_indices); made by pack_padded_sequence
    and pack_sequence, never by hand. unsorted_indices defaults to the inverse of
    sorted_indices."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes), ...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """data converted by Tensor.to; the indices follow data's device only."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device
        indices = (None if t is None else t.to(device)
                   for t in (self.sorted_indices, self.unsorted_indices))
        return type(self)(data, self.batch_sizes, *indices)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=ember.float64)

    def float(self):
        return self.to(dtype=ember.float32)

    def half(self):
        return self.to(dtype=ember.float16)

    def long(self):
        return self.to(dtype=ember.int64)

    def int(self):
        return self.to(dtype=ember.int32)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    output = ember.empty_like(permutation)
    output.scatter_(0, permutation, ember.arange(permutation.numel(), dtype=ember.int64))
    return output


def _pack(input, lengths):
    """torch's _pack_padded_sequence on a time-major (T, B, *) input with sorted lengths."""
    if any(n <= 0 for n in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in itertools.pairwise(lengths)):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX exportability."
        )
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    data = ember.cat([input[t, :bs] for t, bs in enumerate(batch_sizes)])
    return data, ember.tensor(batch_sizes, dtype=ember.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded (T, B, *) batch ((B, T, *) when batch_first) of sequences with the
    given lengths; enforce_sorted=False sorts them (longest first) and remembers the order."""
    lengths = ember.as_tensor(lengths, dtype=ember.int64).to(ember.int64)
    batch_dim = 0 if batch_first else 1
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = ember.sort(lengths, descending=True)
        input = input.index_select(batch_dim, sorted_indices)
    if lengths.numel() != input.shape[batch_dim]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lengths.numel()} (batch_size={input.shape[batch_dim]})")
    if batch_first:
        input = input.transpose(0, 1)
    data, batch_sizes = _pack(input, lengths.tolist())
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo pack_padded_sequence: (padded batch, lengths), in the original batch order."""
    batch_sizes = sequence.batch_sizes.tolist()
    max_seq_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence "
                f"in input, but got total_length={total_length} and max sequence length "
                f"being {max_seq_length}"
            )
        max_seq_length = total_length
    data = sequence.data
    batch = batch_sizes[0]

    def fill(n):
        return ember.full((n, *data.shape[1:]), padding_value, dtype=data.dtype)

    rows = [ember.cat([step, fill(batch - bs)]) if bs < batch else step
            for step, bs in zip(data.split(batch_sizes), batch_sizes, strict=True)]
    rows += [fill(batch)] * (max_seq_length - len(batch_sizes))
    padded = ember.stack(rows)
    lengths = ember.tensor([sum(1 for bs in batch_sizes if bs > b) for b in range(batch)],
                           dtype=ember.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack (L_i, *) tensors into (T, B, *) ((B, T, *) when batch_first), padding each to
    the longest on the right (or left) with padding_value."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(  # noqa: TRY004 (torch raises RuntimeError)
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}")
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        pad = ember.full((longest - s.shape[0], *s.shape[1:]), padding_value, dtype=s.dtype)
        rows.append(ember.cat([s, pad] if padding_side == "right" else [pad, s]))
    return ember.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of unpadded sequences of a padded batch."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of (L_i, *) tensors (longest first unless enforce_sorted=False)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
