"""ember._dynamo.exc: what capture raises with fullgraph=True."""


class Unsupported(RuntimeError):
    """The callable cannot be captured in one graph (torch._dynamo.exc.Unsupported)."""
