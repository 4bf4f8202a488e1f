# ruff: noqa: UP032  (kept in the style of the program it copies)
"""pytorch/examples regression/main.py: fits a degree-4 polynomial with one Linear layer
and F.smooth_l1_loss, updating the parameters by hand."""
import torch
import torch.nn.functional as F

POLY_DEGREE = 4


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x, W_target, b_target):
    """Approximated function."""
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    """Creates a string description of a polynomial."""
    result = 'y = '
    for i, w in enumerate(W):
        result += '{:+.2f} x^{} '.format(w, i + 1)
    result += '{:+.2f}'.format(b[0])
    return result


def get_batch(random, W_target, b_target):
    """Builds a batch i.e. (x, f(x)) pair from the draws `random`."""
    x = make_features(random)
    y = f(x, W_target, b_target)
    return x, y


def main(W_target, b_target, draws, fc_state):
    fc = torch.nn.Linear(W_target.size(0), 1)
    fc_state(fc)
    losses = []
    for random in draws:
        batch_x, batch_y = get_batch(random, W_target, b_target)
        fc.zero_grad()
        output = F.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()
        output.backward()
        with torch.no_grad():
            for param in fc.parameters():
                param.add_(-0.1 * param.grad)
        losses.append(loss)
        if loss < 1e-3:
            break
    return losses, poly_desc(fc.weight.view(-1), fc.bias)
