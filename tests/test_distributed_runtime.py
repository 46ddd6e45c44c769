"""Rank layout, configs and single-process no-op behaviour (in-process, no servers)."""
import json

import pytest
import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.sessions.broadcast_hook import (NPUBroadcastGlobalVariablesHook,
                                                   npu_hooks_append)
from npu_bridge.distributed.optimizers.optimizer import NPUDistributedOptimizer
from npu_bridge.hccl import hccl_ops
from npu_bridge.launch import free_ports, rank_env


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("RANK_SIZE", "RANK_ID", runtime.HOSTS_ENV, "TF_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_single_process_is_noop():
    assert runtime.rank_info() == (1, 0, ())
    assert not runtime.is_distributed() and runtime.is_writer_rank()
    assert runtime.ensure_server() is None
    base = tf.compat.v1.ConfigProto(log_device_placement=True)
    assert runtime.session_config_for_rank(base) is base
    assert runtime.session_config_for_rank() is None
    assert (hccl_ops.get_rank_size(), hccl_ops.get_rank_id()) == (1, 0)
    assert (hccl_ops.get_local_rank_size(), hccl_ops.get_local_rank_id()) == (1, 0)
    hooks = []
    assert npu_hooks_append(hooks) is hooks and hooks == []
    assert npu_hooks_append() == []


def test_layout_from_our_env(clean_env):
    clean_env.setenv("RANK_SIZE", "3")
    clean_env.setenv("RANK_ID", "2")
    clean_env.setenv(runtime.HOSTS_ENV, "a:1, b:2,a:3")
    assert runtime.rank_info() == (3, 2, ("a:1", "b:2", "a:3"))
    assert runtime.local_rank_info() == (2, 1)
    assert not runtime.is_writer_rank()
    base = tf.compat.v1.ConfigProto(allow_soft_placement=True)
    config = runtime.session_config_for_rank(base)
    assert config is not base and not base.device_filters
    assert config.allow_soft_placement
    assert list(config.device_filters) == ["/job:worker/task:2"]
    assert config.experimental.collective_group_leader == "/job:worker/replica:0/task:0"
    hooks = npu_hooks_append([])
    assert len(hooks) == 1 and isinstance(hooks[0], NPUBroadcastGlobalVariablesHook)
    assert len(npu_hooks_append(hooks)) == 1  # not added twice


def test_layout_from_tf_config(clean_env):
    clean_env.setenv("RANK_SIZE", "2")
    clean_env.setenv("TF_CONFIG", json.dumps(
        {"cluster": {"worker": ["h:5", "h:6"]}, "task": {"type": "worker", "index": 1}}))
    assert runtime.rank_info() == (2, 1, ("h:5", "h:6"))


@pytest.mark.parametrize("env, message", [
    ({"RANK_SIZE": "x"}, "RANK_SIZE must be an integer"),
    ({"RANK_SIZE": "0"}, "RANK_SIZE must be >= 1"),
    ({"RANK_SIZE": "2", runtime.HOSTS_ENV: "a:1,a:2"}, "RANK_ID is not set"),
    ({"RANK_SIZE": "2", "RANK_ID": "2", runtime.HOSTS_ENV: "a:1,a:2"}, r"RANK_ID must be in \[0, 2\)"),
    ({"RANK_SIZE": "2", "RANK_ID": "0"}, "NPU_BRIDGE_HOSTS"),
    ({"RANK_SIZE": "3", "RANK_ID": "0", runtime.HOSTS_ENV: "a:1,a:2"}, "lists 2 hosts"),
    ({"RANK_SIZE": "2", "RANK_ID": "0", runtime.HOSTS_ENV: "a,b"}, "not host:port"),
])
def test_bad_layout_messages(clean_env, env, message):
    for name, value in env.items():
        clean_env.setenv(name, value)
    with pytest.raises(ValueError, match=message):
        runtime.rank_info()


def test_hccl_argument_checks(clean_env):
    with tf.Graph().as_default():
        t = tf.ones([2])
        with pytest.raises(ValueError, match="reduction"):
            hccl_ops.allreduce(t, "avg")
        with pytest.raises(ValueError, match="rank_size=2 does not match RANK_SIZE=1"):
            hccl_ops.allgather(t, 2)
        with pytest.raises(ValueError, match="group"):
            hccl_ops.allreduce(t, "sum", group="other")
        out = hccl_ops.broadcast([t, t], 0)
        assert isinstance(out, list) and len(out) == 2


def test_optimizer_single_process_passthrough():
    with tf.Graph().as_default():
        v = tf.compat.v1.get_variable("v", initializer=[1.0, 2.0], use_resource=True)
        loss = tf.reduce_sum(v * v)
        opt = NPUDistributedOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.5))
        train = opt.minimize(loss)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(train)
            assert sess.run(v).tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="tf.compat.v1.train.Optimizer"):
        NPUDistributedOptimizer(object())


def test_launcher_env_and_ports():
    ports = free_ports(3)
    assert len(set(ports)) == 3
    env = rank_env({"TF_CONFIG": "{}", "X": "1"}, 1, ["h:1", "h:2"])
    assert env["RANK_SIZE"] == "2" and env["RANK_ID"] == "1" and env["X"] == "1"
    assert env[runtime.HOSTS_ENV] == "h:1,h:2" and "TF_CONFIG" not in env


@pytest.mark.parametrize("rank, root, writes, restores, order", [
    # the root rank writes its start checkpoint, then meets the others at the broadcast
    (0, 0, True, [], ["saver", "broadcast"]),
    # any other writer (a model_dir of its own) saves the values it was sent
    (1, 0, True, [], ["broadcast", "saver"]),
    (0, 1, True, [], ["broadcast", "saver"]),
    # saving exchanges sharded slots: the order is the same on every rank
    (0, 0, True, ["restore"], ["restore", "broadcast", "saver"]),
    (1, 0, False, ["restore"], ["restore", "broadcast", "saver"]),
    (1, 0, False, [], ["broadcast", "saver"]),
])
def test_session_start_order_puts_the_roots_saver_before_the_broadcast_only(
        clean_env, rank, root, writes, restores, order):
    from npu_bridge.distributed.sessions import estimator_support
    clean_env.setenv("RANK_SIZE", "2")
    clean_env.setenv("RANK_ID", str(rank))
    clean_env.setenv(runtime.HOSTS_ENV, "127.0.0.1:1,127.0.0.1:2")
    broadcast = NPUBroadcastGlobalVariablesHook(root)
    assert broadcast.root_rank == root
    names = {id(broadcast): "broadcast"}
    got = estimator_support.session_start_order(list(restores), [broadcast], "saver", writes)
    assert [names.get(id(h), h) for h in got] == order
    # without a saver, or without a broadcast, nothing moves
    assert estimator_support.session_start_order(list(restores), [broadcast], None, writes) == (
        list(restores) + [broadcast])
    assert estimator_support.session_start_order(list(restores), [], "saver", writes) == (
        list(restores) + ["saver"])



def test_fused_reduce_reshapes_wait_for_the_update_ops_through_their_inputs_only():
    """Reshapes made inside ``tf.control_dependencies(update_ops)`` keep the ordering
    but their shape constants get no edge from each update op (about 30,000 edges on
    bench_startup's model with two ranks)."""
    from npu_bridge.distributed.collectives.collectives import _reshaped
    with tf.Graph().as_default() as graph:
        v = tf.compat.v1.Variable(1.0, use_resource=True)
        update = v.assign_add(1.0).op
        outside = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with tf.control_dependencies([update]):
            inside = tf.identity(outside)
            from_inside = _reshaped(inside, [-1])
            from_outside = _reshaped(outside, [4])
        assert inside.op.control_inputs == [update]
        assert from_inside.op.control_inputs == []  # waits through ``inside``
        assert from_outside.op.control_inputs == [update]
        constants = [op for op in graph.get_operations() if op.type == "Const"]
        assert all(not op.control_inputs for op in constants)
        with tf.compat.v1.Session() as session:
            session.run(v.initializer)
            assert session.run(from_inside).tolist() == [1.0, 2.0, 3.0, 4.0]
            assert session.run(from_outside).tolist() == [1.0, 2.0, 3.0, 4.0]
