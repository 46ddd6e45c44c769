"""``tf.contrib.image``: projective transforms of images (small code of ours on TF 2.15's op).

``transform(images, transforms, interpolation='NEAREST', output_shape=None)``
maps each output pixel (x, y) to the input point ((a0 x + a1 y + a2) / k,
(b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, for ``transforms`` rows
``[a0, a1, a2, b0, b1, b2, c0, c1]``; points outside the image read 0.
``rotate(images, angles)`` turns counterclockwise by ``angles`` radians about
the image centre; ``translate(images, [dx, dy])`` shifts content right/down.
``angles_to_projective_transforms``, ``translations_to_projective_transforms``,
``compose_transforms``, ``flat_transforms_to_matrices`` and
``matrices_to_flat_transforms`` build the rows.  Images are ``[H, W]``,
``[H, W, C]`` or ``[N, H, W, C]``, as in TF 1.15; TensorFlow's
``ImageProjectiveTransformV2`` op does the sampling (and has a gradient).
"""

import tensorflow as tf

from npu_bridge.tf1.errors import not_provided_getattr


def _as_batch(images):
    images = tf.convert_to_tensor(images, name="images")
    rank = images.shape.ndims
    if rank == 2:
        return images[None, :, :, None], lambda out: out[0, :, :, 0]
    if rank == 3:
        return images[None], lambda out: out[0]
    if rank == 4:
        return images, lambda out: out
    raise TypeError("contrib.image: images must have rank 2, 3 or 4; got shape %s" % images.shape)


def transform(images, transforms, interpolation="NEAREST", output_shape=None, name=None):
    """``images`` resampled through the projective ``transforms`` ([8] or [N, 8])."""
    with tf.name_scope(name or "transform"):
        batch, restore = _as_batch(images)
        transforms = tf.convert_to_tensor(transforms, tf.float32, name="transforms")
        if transforms.shape.ndims == 1:
            transforms = transforms[None]
        if output_shape is None:
            output_shape = tf.shape(batch)[1:3]
        output_shape = tf.convert_to_tensor(output_shape, tf.int32, name="output_shape")
        out = tf.raw_ops.ImageProjectiveTransformV2(
            images=batch, transforms=transforms, output_shape=output_shape,
            interpolation=interpolation.upper(), fill_mode="CONSTANT")
        return restore(out)


def angles_to_projective_transforms(angles, image_height, image_width, name=None):
    """Rows that rotate by ``angles`` (radians, counterclockwise) about the image centre."""
    with tf.name_scope(name or "angles_to_projective_transforms"):
        angles = tf.convert_to_tensor(angles, tf.float32)
        if angles.shape.ndims == 0:
            angles = angles[None]
        cos, sin = tf.cos(angles), tf.sin(angles)
        width = tf.cast(image_width, tf.float32) - 1
        height = tf.cast(image_height, tf.float32) - 1
        x_offset = (width - (cos * width - sin * height)) / 2.0
        y_offset = (height - (sin * width + cos * height)) / 2.0
        zeros = tf.zeros_like(angles)
        return tf.stack([cos, -sin, x_offset, sin, cos, y_offset, zeros, zeros], axis=1)


def translations_to_projective_transforms(translations, name=None):
    """Rows that move content by ``translations`` ([dx, dy] or [N, 2])."""
    with tf.name_scope(name or "translations_to_projective_transforms"):
        translations = tf.convert_to_tensor(translations, tf.float32)
        if translations.shape.ndims == 1:
            translations = translations[None]
        dx, dy = translations[:, 0], translations[:, 1]
        ones, zeros = tf.ones_like(dx), tf.zeros_like(dx)
        return tf.stack([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)


def rotate(images, angles, interpolation="NEAREST", name=None):
    """``images`` turned counterclockwise by ``angles`` radians (one per image, or one for all)."""
    with tf.name_scope(name or "rotate"):
        batch, restore = _as_batch(images)
        shape = tf.cast(tf.shape(batch)[1:3], tf.float32)
        rows = angles_to_projective_transforms(angles, shape[0], shape[1])
        return restore(transform(batch, rows, interpolation))


def translate(images, translations, interpolation="NEAREST", name=None):
    """``images`` shifted by ``translations`` ([dx, dy] pixels, right and down)."""
    with tf.name_scope(name or "translate"):
        return transform(images, translations_to_projective_transforms(translations),
                         interpolation)


def flat_transforms_to_matrices(transforms):
    """[N, 8] rows -> [N, 3, 3] matrices."""
    transforms = tf.convert_to_tensor(transforms, tf.float32)
    if transforms.shape.ndims == 1:
        transforms = transforms[None]
    ones = tf.ones_like(transforms[:, :1])
    return tf.reshape(tf.concat([transforms, ones], axis=1), [-1, 3, 3])


def matrices_to_flat_transforms(transform_matrices):
    """[N, 3, 3] matrices -> [N, 8] rows (normalised so the last entry is 1)."""
    matrices = tf.convert_to_tensor(transform_matrices, tf.float32)
    matrices = matrices / matrices[:, 2:3, 2:3]
    return tf.reshape(matrices, [-1, 9])[:, :8]


def compose_transforms(*transforms):
    """One row per image that applies ``transforms[0]``, then ``transforms[1]`` ... to the image."""
    composed = flat_transforms_to_matrices(transforms[0])
    for rows in transforms[1:]:
        composed = tf.matmul(composed, flat_transforms_to_matrices(rows))
    return matrices_to_flat_transforms(composed)


__getattr__ = not_provided_getattr("tf.contrib.image")
