"""The device loop: N steps per ``Session.run`` and the outfeed that carries host_call values out.

``plan`` is what one train()/evaluate() call runs (N, step limits, cadences,
steps that run alone, the outfeed's bounds), made once and handed to the
rest; ``builder`` traces one step or an in-graph loop of N steps;
``loop_values`` copies what is fetched after a run out of the loop body;
``loop_hooks`` keeps stops, checkpoints and logging step-exact under the
loop; ``host_call`` checks a spec's ``(fn, tensors)`` and calls ``fn``;
``outfeed`` is the queue, host loop and host thread of host_call;
``session_loop`` gives plain Session scripts N steps per ``sess.run``
(``set_iteration_per_loop``).
"""
