"""Which pipes and sentinels have something to read: the same answers as the standard library's wait."""

from __future__ import annotations

import multiprocessing
from multiprocessing.connection import Pipe, wait

from conformance.run.ready import has_data, ready


def test_a_pipe_with_a_message_or_an_ended_peer_is_ready_and_an_idle_one_is_not() -> None:
    quiet, quiet_peer = Pipe()
    sent, sent_peer = Pipe()
    ended, ended_peer = Pipe()
    sent_peer.send("result")
    ended_peer.close()
    handles = [quiet, sent, ended]
    assert ready(handles, 0.0) == [sent, ended]
    assert ready(handles, 0.0) == [h for h in handles if h in wait(handles, 0.0)]
    assert [has_data(h) for h in handles] == [False, True, True]
    assert ready([quiet], 0.01) == []  # nothing came within the time
    sent.close()
    assert not has_data(sent)  # closed on this side: nothing to read, no error
    quiet_peer.close()


def test_an_exited_processs_sentinel_is_ready() -> None:
    process = multiprocessing.get_context("fork").Process(target=int)
    process.start()
    process.join()
    alive, _ = Pipe()
    assert ready([alive, process.sentinel], 5.0) == [process.sentinel]
    process.close()
