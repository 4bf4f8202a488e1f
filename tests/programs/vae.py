# ruff: noqa: UP008  (kept in the style of the program it copies)
"""pytorch/examples vae/main.py: the VAE, its loss and its train/test loops."""
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()

        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def main(images, epochs, model_state, batch_size=4):
    torch.manual_seed(1)
    device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() \
        else torch.device("cpu")
    dataset = torch.utils.data.TensorDataset(images, torch.zeros(len(images)))
    train_loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=False)
    model = VAE().to(device)
    model_state(model)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    losses, test_losses = [], []
    for epoch in range(1, epochs + 1):
        model.train()
        for batch_idx, (data, _) in enumerate(train_loader):
            data = data.to(device)
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(data)
            loss = loss_function(recon_batch, data, mu, logvar)
            loss.backward()
            losses.append(loss.item())
            optimizer.step()
        model.eval()
        test_loss = 0
        with torch.no_grad():
            for i, (data, _) in enumerate(train_loader):
                recon_batch, mu, logvar = model(data)
                test_loss += loss_function(recon_batch, data, mu, logvar).item()
            sample = torch.randn(8, 20).to(device)
            sample = model.decode(sample).cpu()
        test_losses.append(test_loss / len(train_loader.dataset))
    return losses, test_losses, sample.view(8, 1, 28, 28)
