"""``tf.contrib.distributions``: the distributions TF 2.15 keeps in ``tf.compat.v1.distributions``.

``Normal``, ``Categorical``, ``Bernoulli``, ``Beta``, ``Dirichlet``,
``Gamma``, ``Multinomial``, ``Uniform``, ``Laplace``, ``StudentT``,
``Exponential``, ``kl_divergence``, ``RegisterKL``, ``Distribution`` ...
are TensorFlow's (the same classes contrib re-exported).  Contrib's own
extras (``percentile``, ``MultivariateNormalDiag``, bijectors ...) moved to
TensorFlow Probability, which this mode does not bring.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import first_of, not_provided_getattr

_TFP = "TensorFlow Probability's tfp.%s (pip install tensorflow-probability==0.23)"

__getattr__ = not_provided_getattr(
    "tf.contrib.distributions", first_of(tf.compat.v1.distributions),
    instead={"percentile": _TFP % "stats.percentile",
             "MultivariateNormalDiag": _TFP % "distributions.MultivariateNormalDiag",
             "bijectors": _TFP % "bijectors"})
