"""``tf.contrib.cluster_resolver``: the cluster resolvers, now ``tf.distribute.cluster_resolver``.

``TPUClusterResolver``, ``TFConfigClusterResolver``,
``SimpleClusterResolver``, ``SlurmClusterResolver``,
``GCEClusterResolver``, ``KubernetesClusterResolver``,
``UnionResolver`` (``UnionClusterResolver``) ... are the classes TF 1.15's
contrib re-exported.  A ``TPUClusterResolver`` still needs a TPU to connect
to, as in TF 1.15; scripts that only build one when ``--use_tpu`` is given
run as before.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import first_of, not_provided_getattr

UnionClusterResolver = tf.distribute.cluster_resolver.UnionResolver

__getattr__ = not_provided_getattr(
    "tf.contrib.cluster_resolver", first_of(tf.distribute.cluster_resolver))
