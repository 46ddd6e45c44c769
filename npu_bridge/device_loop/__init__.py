"""The device loop: N steps per ``Session.run`` and the outfeed that carries host_call values out.

``builder`` traces one step or an in-graph loop of N steps; ``loop_values``
copies what is fetched after a run out of the loop body; ``loop_hooks`` keeps
stops, checkpoints and logging step-exact under the loop; ``outfeed`` is the
queue, host loop and host thread of host_call; ``session_loop`` gives plain
Session scripts N steps per ``sess.run`` (``set_iteration_per_loop``).
"""
