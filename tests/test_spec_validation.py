"""NPUEstimatorSpec: a real EstimatorSpec, and host_call checked when it is built."""

import functools

import pytest
import tensorflow as tf

from npu_bridge.npu_init import NPUEstimatorSpec

TRAIN = tf.estimator.ModeKeys.TRAIN


@pytest.fixture
def graph_tensors():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        gs = tf.compat.v1.train.get_or_create_global_step()
        yield loss, gs.assign_add(1), gs


def _spec(tensors, host_call):
    loss, train_op, _ = tensors
    return NPUEstimatorSpec(TRAIN, loss=loss, train_op=train_op, host_call=host_call)


def two(a, b):
    return []


def test_is_an_estimator_spec_keeping_host_call(graph_tensors):
    host_call = (two, [graph_tensors[0], graph_tensors[2]])
    spec = _spec(graph_tensors, host_call)
    assert isinstance(spec, tf.estimator.EstimatorSpec)
    assert spec.host_call is host_call
    assert spec.loss is graph_tensors[0]
    replaced = spec._replace(loss=tf.constant(2.0))
    assert replaced.host_call is host_call and isinstance(replaced, NPUEstimatorSpec)


def test_host_call_defaults_to_none(graph_tensors):
    assert _spec(graph_tensors, None).host_call is None


@pytest.mark.parametrize("bad,got", [
    ((two,), "a tuple of 1 elements"),
    ((two, [], []), "a tuple of 3 elements"),
    (two, "function (<function two"),
    ("fn", "str"),
])
def test_host_call_must_be_a_pair(graph_tensors, bad, got):
    with pytest.raises(ValueError, match=r"host_call must be a tuple or list of two elements") as e:
        _spec(graph_tensors, bad)
    assert got in str(e.value)


def test_host_call_function_must_be_callable(graph_tensors):
    with pytest.raises(TypeError, match=r"host_call\[0\] must be callable.*got int"):
        _spec(graph_tensors, (3, [graph_tensors[0]]))


def test_host_call_tensors_must_be_list_tuple_or_dict(graph_tensors):
    with pytest.raises(ValueError, match=r"host_call\[1\] must be a list, tuple or dict.*got a single Tensor"):
        _spec(graph_tensors, (two, graph_tensors[0]))


def test_list_length_must_match_the_arguments(graph_tensors):
    with pytest.raises(RuntimeError, match=r"host_call: the host function two takes 2 positional.*holds 1 tensor"):
        _spec(graph_tensors, (two, [graph_tensors[0]]))
    with pytest.raises(RuntimeError, match=r"holds 3 tensor"):
        _spec(graph_tensors, (two, [graph_tensors[0]] * 3))


def test_varargs_take_any_length(graph_tensors):
    def any_count(*tensors):
        return []
    assert _spec(graph_tensors, (any_count, [graph_tensors[0]] * 5)).host_call is not None


def test_partial_and_bound_methods_are_counted_right(graph_tensors):
    def three(a, b, c):
        return []

    class Writer(object):
        def write(self, step, loss):
            return []

    loss = graph_tensors[0]
    assert _spec(graph_tensors, (functools.partial(three, 1), [loss, loss])).host_call
    with pytest.raises(RuntimeError, match=r"functools.partial\(.*three\) takes 2"):
        _spec(graph_tensors, (functools.partial(three, 1), [loss, loss, loss]))
    assert _spec(graph_tensors, (Writer().write, [loss, loss])).host_call
    with pytest.raises(RuntimeError, match=r"Writer.write takes 2"):
        _spec(graph_tensors, (Writer().write, [loss]))


def test_defaults_allow_shorter_lists(graph_tensors):
    def opt(a, b=None):
        return []
    assert _spec(graph_tensors, (opt, [graph_tensors[0]])).host_call


def test_dict_keys_must_match_keyword_parameters(graph_tensors):
    loss = graph_tensors[0]
    assert _spec(graph_tensors, (two, {"a": loss, "b": loss})).host_call
    with pytest.raises(RuntimeError, match=r"keys \['c'\] are not parameters"):
        _spec(graph_tensors, (two, {"a": loss, "b": loss, "c": loss}))
    with pytest.raises(RuntimeError, match=r"parameters \['b'\] have no key"):
        _spec(graph_tensors, (two, {"a": loss}))

    def kw(a, **rest):
        return []
    assert _spec(graph_tensors, (kw, {"a": loss, "anything": loss})).host_call


def test_elements_must_be_tensors_or_variables(graph_tensors):
    loss, _, gs = graph_tensors
    assert _spec(graph_tensors, (two, [gs, loss])).host_call  # a tf.Variable is fine
    with pytest.raises(TypeError, match=r"host_call\[1\]\[1\] must be a tf.Tensor or tf.Variable; got float"):
        _spec(graph_tensors, (two, [loss, 1.5]))
    with pytest.raises(TypeError, match=r"host_call\[1\]\['b'\] must be a tf.Tensor"):
        _spec(graph_tensors, (two, {"a": loss, "b": "text"}))


def test_plain_estimator_accepts_the_spec_and_ignores_host_call(tmp_path):
    from conftest import dataset_input_fn, linear_model_fn
    est = tf.compat.v1.estimator.Estimator(
        linear_model_fn(), model_dir=str(tmp_path / "m"),
        params={"host_logdir": str(tmp_path / "host")})
    est.train(dataset_input_fn(), steps=3)
    assert est.get_variable_value("global_step") == 3
    assert not (tmp_path / "host").exists()
