"""What the rank benchmarks share: an MLP timed on each rank, and starting its ranks.

``bench_ranks.py`` (fused vs unfused all-reduce) and ``bench_sharding.py``
(sharded vs full weight update) time the same model and differ only in the
optimizer they wrap and the environment they start ranks with.
"""

import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_ARGS = ("layers", "width", "batch", "steps", "warmup")


def time_mlp_steps(args, make_optimizer):
    """Trains ``args.layers`` dense layers on this rank; returns (rank info, ms/step, optimizer bytes).

    ``make_optimizer(tf)`` returns the NPUDistributedOptimizer to minimize with.
    Optimizer bytes: every variable on this rank that is neither a model weight
    nor the global step (slots and non-slot state such as Adam's powers).
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    from npu_bridge.distributed.cluster import runtime
    from npu_bridge.distributed.collectives import collectives
    from npu_bridge.distributed.sessions.broadcast_hook import npu_hooks_append

    tf.compat.v1.disable_eager_execution()
    info = runtime.rank_info()
    with tf.compat.v1.Graph().as_default():
        h = tf.random.normal([args.batch, args.width], seed=info.rank_id)
        for i in range(args.layers):
            h = tf.compat.v1.layers.dense(h, args.width, activation=tf.nn.relu, name="l%d" % i)
        loss = tf.reduce_mean(tf.square(h))
        train = make_optimizer(tf).minimize(
            loss, global_step=tf.compat.v1.train.get_or_create_global_step())
        state = tf.compat.v1.global_variables() + tf.compat.v1.local_variables()
        model = set(id(v) for v in tf.compat.v1.trainable_variables())
        opt_bytes = sum(v.shape.num_elements() * v.dtype.base_dtype.size for v in state
                        if id(v) not in model and "global_step" not in v.op.name)
        with tf.compat.v1.train.MonitoredTrainingSession(
                master=runtime.ensure_server() or "", is_chief=True,
                hooks=npu_hooks_append([]), config=runtime.session_config_for_rank(),
                save_summaries_steps=None, save_summaries_secs=None,
                log_step_count_steps=None) as sess:
            for _ in range(args.warmup):
                sess.run(train)
            start = time.perf_counter()
            for _ in range(args.steps):
                sess.run(train)
            elapsed = time.perf_counter() - start
        collectives.barrier()
    return info, 1000.0 * elapsed / args.steps, opt_bytes


def run_ranks(script, nproc, args, extra_args=(), extra_env=None, timeout=900):
    """Runs ``script --worker`` with the model arguments as ``nproc`` fresh ranks; its run."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TF_CPP_MIN_LOG_LEVEL="2", **(extra_env or {}))
    for name in ("RANK_SIZE", "RANK_ID", "NPU_BRIDGE_HOSTS", "TF_CONFIG"):
        env.pop(name, None)
    command = [os.path.abspath(script), "--worker"] + [
        "--%s=%s" % (k, getattr(args, k)) for k in MODEL_ARGS] + list(extra_args)
    if nproc > 1:
        command = ["-m", "npu_bridge.launch", "-n", str(nproc)] + command
    return subprocess.run([sys.executable] + command, env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, start_new_session=True)
