"""Train an MLP and a small CNN on scikit-learn's handwritten digits with ember.

    make demo
    python examples/train_digits.py [--epochs-mlp 20] [--epochs-cnn 12] [--save-dir DIR]

The 1797 8x8 digit images ship with scikit-learn (nothing is downloaded). Everything
is seeded: the 80/20 train/test split, the initial weights and the batch order, so a run
prints the same numbers every time. For each model the script trains with SGD (momentum
0.9, cosine learning-rate decay), shows a tqdm bar per epoch, prints the test accuracy,
saves the weights with `ember.save`, loads them into a fresh model and checks that the
reloaded model scores the same.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import load_digits
from tqdm import tqdm

import ember
from ember import nn
from ember.utils.data import DataLoader, TensorDataset, random_split

SPLIT_SEED = 0  # which digits are held out for testing
MODEL_SEED = 0  # initial weights and batch order
BATCH_SIZE = 64


def digits_data(seed: int = SPLIT_SEED) -> tuple[TensorDataset, TensorDataset]:
    """(train, test) datasets of (pixels, label): 1438 and 359 digits as float32 rows of 64
    pixels, scaled to mean 0 and std 1 with the training set's statistics, and int64 labels.

    >>> train_set, test_set = digits_data()
    >>> len(train_set), len(test_set), train_set[0][0].shape
    (1438, 359, ember.Size([64]))
    """
    digits = load_digits()
    pixels = ember.from_numpy(digits.data.astype(np.float32))
    labels = ember.from_numpy(digits.target.astype(np.int64))
    train_part, test_part = random_split(range(len(labels)), [0.8, 0.2],
                                         generator=ember.Generator().manual_seed(seed))
    train_rows, test_rows = ember.tensor(train_part.indices), ember.tensor(test_part.indices)
    mean, std = pixels[train_rows].mean(), pixels[train_rows].std()
    pixels = (pixels - mean) / std
    return (TensorDataset(pixels[train_rows], labels[train_rows]),
            TensorDataset(pixels[test_rows], labels[test_rows]))


def as_images(dataset: TensorDataset) -> TensorDataset:
    """The same samples with the pixels as 1x8x8 images, for the CNN."""
    pixels, labels = dataset.tensors
    return TensorDataset(pixels.reshape(-1, 1, 8, 8), labels)


def make_mlp() -> nn.Module:
    """64 pixels -> 128 hidden units -> 10 class scores."""
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def make_cnn() -> nn.Module:
    """Two 3x3 conv + 2x2 max-pool stages (1x8x8 -> 16x4x4 -> 32x2x2), then a linear layer."""
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )


def train_step(model, loss_fn, optimizer, x, y) -> float:
    """One SGD step on a batch; returns the batch loss."""
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def accuracy(model, dataset: TensorDataset) -> float:
    """The fraction of `dataset` the model classifies correctly (in eval mode, no grad)."""
    pixels, labels = dataset.tensors
    model.eval()
    with ember.no_grad():
        predicted = model(pixels).argmax(dim=1)
    return (predicted == labels).float().mean().item()


def train(model, train_set, test_set, *, epochs: int, lr: float, name: str = "model",
          seed: int = MODEL_SEED, progress: bool = True) -> float:
    """Trains `model` for `epochs` with SGD (momentum 0.9) and a cosine learning-rate
    decay, one tqdm bar per epoch; returns the final test accuracy."""
    loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True,
                        generator=ember.Generator().manual_seed(seed))
    optimizer = ember.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = ember.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader))
    loss_fn = nn.CrossEntropyLoss()
    test_accuracy = 0.0
    for epoch in range(1, epochs + 1):
        model.train()
        total_loss = 0.0
        with tqdm(total=len(loader), desc=f"{name} epoch {epoch:2d}/{epochs}", unit="batch",
                  disable=not progress, leave=True, file=sys.stdout) as bar:
            for x, y in loader:
                total_loss += train_step(model, loss_fn, optimizer, x, y)
                scheduler.step()
                bar.update()
            test_accuracy = accuracy(model, test_set)
            bar.set_postfix(loss=f"{total_loss / len(loader):.4f}",
                            test_acc=f"{test_accuracy:.2%}")
    return test_accuracy


def save_and_reload(model, make_model, path: pathlib.Path) -> nn.Module:
    """Saves the model's state_dict with ember.save and loads it into a fresh model."""
    ember.save(model.state_dict(), path)
    fresh = make_model()
    fresh.load_state_dict(ember.load(path))
    return fresh


def run(name: str, make_model, train_set, test_set, *, epochs: int, lr: float,
        save_dir: pathlib.Path, progress: bool = True) -> float:
    """Builds (seeded), trains, reports, saves and reloads one model; returns its test
    accuracy (after checking that the reloaded model scores the same)."""
    ember.manual_seed(MODEL_SEED)
    model = make_model()
    print(f"\n{name}: {sum(p.numel() for p in model.parameters())} parameters, "
          f"{epochs} epochs, batch {BATCH_SIZE}, SGD lr {lr} momentum 0.9")
    start = time.perf_counter()
    test_accuracy = train(model, train_set, test_set, epochs=epochs, lr=lr, name=name,
                          progress=progress)
    print(f"{name}: test accuracy {test_accuracy:.2%} "
          f"(trained in {time.perf_counter() - start:.1f} s)")
    path = save_dir / f"digits_{name.lower()}.safetensors"
    reloaded_accuracy = accuracy(save_and_reload(model, make_model, path), test_set)
    same = "same as before saving" if reloaded_accuracy == test_accuracy else "DIFFERENT"
    print(f"{name}: saved to {path} ({path.stat().st_size} bytes); reloaded model: "
          f"test accuracy {reloaded_accuracy:.2%} ({same})")
    if reloaded_accuracy != test_accuracy:
        raise SystemExit(f"{name}: the reloaded model does not score like the saved one")
    return test_accuracy


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs-mlp", type=int, default=20)
    parser.add_argument("--epochs-cnn", type=int, default=12)
    parser.add_argument("--save-dir", type=pathlib.Path, default=None,
                        help="where to write the .safetensors files (default: a temporary "
                             "folder)")
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm bars")
    args = parser.parse_args(argv)
    save_dir = args.save_dir or pathlib.Path(tempfile.mkdtemp(prefix="ember-digits-"))
    save_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    train_set, test_set = digits_data()
    print(f"digits: {len(train_set)} training and {len(test_set)} test images of 8x8 pixels")
    progress = not args.no_progress
    results = {
        "MLP": run("MLP", make_mlp, train_set, test_set, epochs=args.epochs_mlp, lr=0.1,
                   save_dir=save_dir, progress=progress),
        "CNN": run("CNN", make_cnn, as_images(train_set), as_images(test_set),
                   epochs=args.epochs_cnn, lr=0.05, save_dir=save_dir, progress=progress),
    }
    print(f"\ndone in {time.perf_counter() - start:.1f} s: "
          + ", ".join(f"{name} {acc:.2%}" for name, acc in results.items()))
    return results


if __name__ == "__main__":
    main()
