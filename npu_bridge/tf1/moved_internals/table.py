"""Where each TF 1.15 internal name lives in TensorFlow 2.15: ``{module: {name: provider}}``.

A provider is ``"module:attribute"`` (``patch.resolve``), the public
TensorFlow name wherever there is one, so the name put back is the object
scripts get from the public API.  The list comes from what the model zoo's
scripts and tf-slim 1.1 reach through these modules; names TF 1.15 itself
no longer had (``rnn_cell_impl._like_rnncell``, ``gen_nn_ops._max_pool_grad``
...) are not added.
"""

MOVED_NAMES = {
    "tensorflow.python.framework.ops": {
        "Tensor": "tensorflow:Tensor",
        "IndexedSlices": "tensorflow:IndexedSlices",
        "IndexedSlicesValue": "tensorflow.python.framework.indexed_slices:IndexedSlicesValue",
        "convert_to_tensor_or_indexed_slices":
            "tensorflow:compat.v1.convert_to_tensor_or_indexed_slices",
        "convert_n_to_tensor_or_indexed_slices":
            "tensorflow.python.framework.indexed_slices:convert_n_to_tensor_or_indexed_slices",
        "register_tensor_conversion_function": "tensorflow:register_tensor_conversion_function",
    },
    "tensorflow.python.ops.control_flow_ops": {
        "cond": "tensorflow:compat.v1.cond",
        "case": "tensorflow:compat.v1.case",
        "while_loop": "tensorflow:compat.v1.while_loop",
        "Assert": "tensorflow:compat.v1.Assert",
    },
    "tensorflow.python.ops.array_ops": {
        "stack": "tensorflow:stack",
        "unstack": "tensorflow:unstack",
    },
    "tensorflow.python.ops.variable_scope": {
        "variable": "npu_bridge.tf1.moved_internals.tf1_functions:variable",
    },
    "tensorflow.python.ops.variables": {
        "VariableV1": "tensorflow:compat.v1.Variable",
        "RefVariable": "tensorflow.python.ops.ref_variable:RefVariable",
    },
    "tensorflow.python.util.nest": {
        "is_sequence": "tensorflow:nest.is_nested",
        "is_sequence_or_composite": "tensorflow.python.util.nest:is_nested_or_composite",
    },
    "tensorflow.python.framework.graph_util": {
        "convert_variables_to_constants":
            "tensorflow:compat.v1.graph_util.convert_variables_to_constants",
    },
    "tensorflow.python.pywrap_tensorflow": {
        "NewCheckpointReader": "tensorflow:compat.v1.train.NewCheckpointReader",
        "CheckpointReader": "tensorflow.python.util._pywrap_checkpoint_reader:CheckpointReader",
    },
    # TF 2.15 loads these four from tf_keras, which is not installed; the TF1
    # API's own legacy layers (keras 2.15, installed with TensorFlow) are them.
    "tensorflow.python.layers.normalization": {
        "BatchNormalization": "tensorflow:compat.v1.layers.BatchNormalization",
        "BatchNorm": "tensorflow:compat.v1.layers.BatchNormalization",
        "batch_normalization": "tensorflow:compat.v1.layers.batch_normalization",
        "batch_norm": "tensorflow:compat.v1.layers.batch_normalization",
    },
    # TF 1.15's tf.contrib.slim carried the variable_scope module along
    # (scripts write slim.variable_scope.variable_scope(...)).
    "tf_slim": {
        "variable_scope": "tensorflow.python.ops.variable_scope:",
    },
}
