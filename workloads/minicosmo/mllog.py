"""Minimal MLPerf HPC style logger (":::MLLOG {json}" lines).

Writes the same record layout as the mlperf_logging package used by the
CosmoFlow reference: namespace, time_ms, event_type, key, value and
metadata {file, lineno, ...}. Only rank 0 should create an enabled logger.
"""

import json
import os
import sys
import time

INTERVAL_START = "INTERVAL_START"
INTERVAL_END = "INTERVAL_END"
POINT_IN_TIME = "POINT_IN_TIME"


class MLLogger:
    def __init__(self, path=None, echo=True, enabled=True, metadata=None):
        self.enabled = enabled
        # Added to every record, e.g. {"instance_id": 3} for an instance of a weak-scaling run.
        self.metadata = dict(metadata or {})
        self.echo = echo
        self._fh = None
        if enabled and path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            # Line buffered: a killed run still leaves its log behind.
            self._fh = open(path, "w", buffering=1)

    def _emit(self, event_type, key, value=None, metadata=None, stack=2):
        if not self.enabled:
            return
        frame = sys._getframe(stack)
        meta = {"file": os.path.basename(frame.f_code.co_filename),
                "lineno": frame.f_lineno}
        meta.update(self.metadata)
        if metadata:
            meta.update(metadata)
        rec = {"namespace": "", "time_ms": int(time.time() * 1000),
               "event_type": event_type, "key": key, "value": value,
               "metadata": meta}
        line = ":::MLLOG " + json.dumps(rec)
        if self._fh:
            self._fh.write(line + "\n")
        if self.echo:
            print(line, flush=True)

    def event(self, key, value=None, metadata=None):
        self._emit(POINT_IN_TIME, key, value, metadata)

    def start(self, key, value=None, metadata=None):
        self._emit(INTERVAL_START, key, value, metadata)

    def end(self, key, value=None, metadata=None):
        self._emit(INTERVAL_END, key, value, metadata)

    def close(self):
        if self._fh:
            self._fh.close()
            self._fh = None
