"""`ember.distributions`: probability distributions with sampling, reparameterized
sampling, log-densities, entropies and KL divergences, as torch.distributions (VAEs and
RL code use them). Samples come from ember's generator, so they differ from torch's for
the same seed; densities, moments and divergences are torch's.

    >>> p, q = Normal(0.0, 1.0), Normal(1.0, 2.0)
    >>> kl_divergence(p, q)
    tensor(0.4431)
"""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "MultivariateNormal", "Normal",
           "Uniform", "constraints", "kl_divergence", "register_kl"]
