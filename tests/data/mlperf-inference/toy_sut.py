"""toy_sut.py — a system under test for the real MLPerf Inference LoadGen
(pip mlcommons-loadgen), used by tests/data/make_import_data.sh to make logs
of the published shape: every query sorts a list; MCPP_SLOW=N sorts N times
(the regression is extra work, never an edited number).

usage: toy_sut.py SCENARIO OUT_DIR   (SCENARIO: Offline, SingleStream, Server or MultiStream)
"""
import os
import sys

import mlperf_loadgen as lg

REPEAT = int(os.environ.get("MCPP_SLOW", "1"))
DATA = [(i * 2654435761) % 1000003 for i in range(2000)]
N_SAMPLES = 64


def issue_queries(samples):
    done = []
    for s in samples:
        for _ in range(REPEAT):
            sorted(DATA)
        done.append(lg.QuerySampleResponse(s.id, 0, 0))
    lg.QuerySamplesComplete(done)


def main():
    scenario, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    settings = lg.TestSettings()
    settings.scenario = getattr(lg.TestScenario, scenario)
    settings.mode = lg.TestMode.PerformanceOnly
    settings.min_duration_ms = 500
    settings.min_query_count = 64
    settings.offline_expected_qps = 20000
    settings.single_stream_expected_latency_ns = 20000
    settings.server_target_qps = 2000
    settings.server_target_latency_ns = 10000000
    settings.multi_stream_samples_per_query = 8
    settings.multi_stream_expected_latency_ns = 400000
    log = lg.LogOutputSettings()
    log.outdir = out_dir
    log.copy_summary_to_stdout = False
    log_settings = lg.LogSettings()
    log_settings.log_output = log
    log_settings.enable_trace = False
    sut = lg.ConstructSUT(issue_queries, lambda: None)
    qsl = lg.ConstructQSL(N_SAMPLES, N_SAMPLES, lambda s: None, lambda s: None)
    lg.StartTestWithLogSettings(sut, qsl, settings, log_settings)
    lg.DestroyQSL(qsl)
    lg.DestroySUT(sut)


if __name__ == "__main__":
    main()
