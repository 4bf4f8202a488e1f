"""ember._functorch (torch._functorch's place): AOT autograd."""
