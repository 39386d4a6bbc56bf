"""Worker processes that do not outlive the process that started them."""

import os
import threading
import time


def exit_with_parent(parent):
    """Initializer of a pool's worker processes (``ProcessPoolExecutor(initializer=exit_with_parent,
    initargs=(os.getpid(),))``): the worker ends when ``parent`` is gone. A killed parent does not shut its pool
    down, and a worker busy with a long task (a model being trained) would otherwise run on for nobody, beside a
    re-run that starts the same task."""

    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
