"""RQ job functions, one module per kind of job, and the worker that runs them."""
