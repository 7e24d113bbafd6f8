"""Runs one vendored Eclipse Paho interop script against a broker, unmodified (but for how long its
clients wait for CONNACK, see CONNACK_LIMIT_S).

usage: python3 run_paho.py <script> <host> <port> <results file> <test name>...

The scripts read --hostname/--port with getopt and then hand sys.argv on to unittest.main(), which
rejects those options (client_test.py leaves -p in argv). So the script gets its options as usual,
and unittest.main gets a clean argv instead: the named tests of the script's Test class, in the
class's own (name) order, as a full run would take them (some tests rely on what ran before), with a runner that records them in the results file, one JSON line each: first
{"discovered": [every test the class has]}, then per finished test its name, outcome, seconds and
the traceback of a failure. So a caller reads outcomes without parsing the scripts' own chatter,
and still has the finished ones if the run is cut short.
"""

import json
import os
import runpy
import select
import sys
import threading
import time
import unittest

# Paho's clients read CONNACK with their socket's timeout (0.3 s in MQTTV5.getPacket, 0.5 s set
# by the V311 client) and take a timeout as a failed connect. MQTT gives the server no such bound,
# and on a loaded machine (2 cores, other test runs beside this one) the broker's answer can take
# longer: the suites then failed for lack of CPU, telling nothing about the broker. So while a
# client connects, its thread first waits (up to CONNACK_LIMIT_S) for the answer's first byte;
# getPacket then reads it at once. Every other read, and every wait in the tests, is the suites'.
CONNACK_LIMIT_S = 60
_connecting = threading.local()


def patient_connects(client_class, formats):
    """Makes `client_class.connect` wait for CONNACK as long as CONNACK_LIMIT_S (see above)."""
    get_packet = formats.getPacket
    connect = client_class.connect

    def get_packet_patiently(sock):
        if getattr(_connecting, "active", False):
            select.select([sock], [], [], CONNACK_LIMIT_S)
        return get_packet(sock)

    def connect_patiently(self, *args, **kwargs):
        _connecting.active = True
        try:
            return connect(self, *args, **kwargs)
        finally:
            _connecting.active = False

    formats.getPacket = get_packet_patiently
    client_class.connect = connect_patiently


class RecordingResult(unittest.TextTestResult):
    """A verbose text result that also records each test's outcome in the results file."""

    results_path = ""

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def _record(self, test, outcome, detail=""):
        line = {"name": test.id().rsplit(".", 1)[-1], "outcome": outcome,
                "seconds": round(time.monotonic() - self._started, 3), "detail": detail}
        with open(self.results_path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "failed", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "error", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skipped", reason)


def main() -> None:
    script, host, port, results, *tests = sys.argv[1:]
    RecordingResult.results_path = results
    real_main = unittest.main

    def patched_main(*args, **kwargs):
        module = sys.modules["__main__"]  # the script: runpy runs it under that name
        discovered = list(unittest.TestLoader().getTestCaseNames(module.Test))
        with open(results, "w", encoding="utf-8") as out:
            out.write(json.dumps({"discovered": discovered}) + "\n")
        kwargs["argv"] = [script, *("Test." + n for n in discovered if n in tests)]
        kwargs["testRunner"] = unittest.TextTestRunner(verbosity=2, resultclass=RecordingResult)
        return real_main(*args, **kwargs)

    unittest.main = patched_main
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))  # for its `mqtt` package
    # The script imports these same modules, patched by then.
    import mqtt.clients.V311
    import mqtt.clients.V5
    import mqtt.formats.MQTTV311
    import mqtt.formats.MQTTV5
    patient_connects(mqtt.clients.V311.Client, mqtt.formats.MQTTV311)
    patient_connects(mqtt.clients.V5.Client, mqtt.formats.MQTTV5)
    sys.argv = [script, "--hostname", host, "--port", port]
    runpy.run_path(script, run_name="__main__")


main()
