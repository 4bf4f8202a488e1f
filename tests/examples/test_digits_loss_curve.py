"""The digits demo (examples/train_digits.py): with the same initial weights and the
same batch order, the MLP's loss curve under SGD matches torch's for 50 steps; the
demo's training functions reach the accuracies it promises; a saved model reloads."""
import doctest
import importlib.util
import itertools
import pathlib

import numpy as np
import pytest

import ember
from ember.utils.data import DataLoader, TensorDataset

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("tqdm")

DEMO_PATH = pathlib.Path(__file__).resolve().parents[2] / "examples" / "train_digits.py"
STEPS = 50
QUICK_EPOCHS = 6


@pytest.fixture(scope="module")
def demo():
    spec = importlib.util.spec_from_file_location("train_digits", DEMO_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def digits(demo):
    return demo.digits_data()


def torch_mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 10))


def batches(loader, steps):
    """The first `steps` batches of a loader, over as many epochs as that takes."""
    return itertools.islice(itertools.chain.from_iterable(itertools.repeat(loader)), steps)


def test_mlp_loss_curve_matches_torch(demo, digits):
    pixels, labels = digits[0].tensors
    reference = torch_mlp()
    model = demo.make_mlp()
    model.load_state_dict({name: ember.from_numpy(value.detach().numpy().copy())
                           for name, value in reference.state_dict().items()})
    order = np.random.default_rng(0).permutation(len(labels)).tolist()  # one batch order
    ember_loader = DataLoader(TensorDataset(pixels, labels), batch_size=64, sampler=order)
    torch_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.from_numpy(pixels.numpy().copy()),
                                       torch.from_numpy(labels.numpy().copy())),
        batch_size=64, sampler=order)

    optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = ember.nn.CrossEntropyLoss()
    ember_losses = [demo.train_step(model, loss_fn, optimizer, x, y)
                    for x, y in batches(ember_loader, STEPS)]

    torch_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    torch_losses = []
    for x, y in batches(torch_loader, STEPS):
        torch_optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(reference(x), y)
        loss.backward()
        torch_optimizer.step()
        torch_losses.append(loss.item())

    assert len(ember_losses) == len(torch_losses) == STEPS
    np.testing.assert_allclose(ember_losses, torch_losses, rtol=0, atol=1e-4)
    assert ember_losses[-1] < 0.5 * ember_losses[0]  # it did learn
    for name, value in reference.state_dict().items():  # and ended at the same weights
        np.testing.assert_allclose(model.state_dict()[name].numpy(), value.numpy(), atol=1e-4)


def test_mlp_reaches_96_percent_and_reloads(demo, digits, tmp_path):
    """Fewer epochs than the demo's 20 (the test stays quick), the same threshold."""
    train_set, test_set = digits
    ember.manual_seed(demo.MODEL_SEED)
    model = demo.make_mlp()
    accuracy = demo.train(model, train_set, test_set, epochs=QUICK_EPOCHS, lr=0.1,
                          progress=False)
    assert accuracy >= 0.96
    reloaded = demo.save_and_reload(model, demo.make_mlp, tmp_path / "mlp.safetensors")
    assert demo.accuracy(reloaded, test_set) == accuracy
    with ember.no_grad():
        x = test_set.tensors[0]
        assert np.array_equal(reloaded(x).numpy(), model(x).numpy())


def test_cnn_reaches_97_percent(demo, digits):
    """Fewer epochs than the demo's 12 (the test stays quick), the same threshold."""
    train_set, test_set = (demo.as_images(part) for part in digits)
    ember.manual_seed(demo.MODEL_SEED)
    model = demo.make_cnn()
    accuracy = demo.train(model, train_set, test_set, epochs=QUICK_EPOCHS, lr=0.05,
                          progress=False)
    assert accuracy >= 0.97


def test_digits_split(digits):
    train_set, test_set = digits
    assert (len(train_set), len(test_set)) == (1438, 359)
    pixels, labels = train_set.tensors
    assert pixels.shape == (1438, 64) and pixels.dtype is ember.float32
    assert labels.dtype is ember.int64 and sorted(set(labels.tolist())) == list(range(10))
    assert abs(pixels.mean().item()) < 1e-5 and abs(pixels.std().item() - 1) < 1e-5


def test_docstring_examples(demo):
    result = doctest.testmod(demo, extraglobs={"ember": ember})
    assert result.attempted > 0 and result.failed == 0
