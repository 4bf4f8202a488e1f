# ruff: noqa: PLR0402, UP008, SIM115  (kept in the style of the program it copies)
"""pytorch/examples time_sequence_prediction/train.py: two LSTMCells over a sine wave,
in float64, trained with LBFGS; saves and reloads its data with torch.save/load."""
import torch
import torch.nn as nn
import torch.optim as optim


class Sequence(nn.Module):
    def __init__(self, hidden=51):
        super(Sequence, self).__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)
        self.dummy_param = nn.Parameter(torch.empty(0))

    def forward(self, input, future=0):
        outputs = []
        device = self.dummy_param.device
        h_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double).to(device)
        c_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double).to(device)
        h_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double).to(device)
        c_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double).to(device)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def main(path, steps, model_state, hidden=51, future=10):
    device = torch.device('cpu')
    torch.manual_seed(0)
    data = torch.from_numpy(torch.load(path, weights_only=False)).to(device)
    input = data[3:, :-1]
    target = data[3:, 1:]
    test_input = data[:3, :-1]
    test_target = data[:3, 1:]
    seq = Sequence(hidden).to(device).double()
    model_state(seq)
    criterion = nn.MSELoss().to(device)
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    losses, test_losses = [], []
    for i in range(steps):
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            losses.append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            test_losses.append(loss.item())
            y = pred.cpu().detach().numpy()
    return losses, test_losses, y


def generate_sine_wave(path, T=20, L=16, N=6):
    """generate_sine_wave.py: N sine waves of length L, random phases."""
    import numpy as np
    np.random.seed(2)
    x = np.empty((N, L), 'int64')
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    data = np.sin(x / 1.0 / T).astype('float64')
    torch.save(data, open(path, 'wb'))
