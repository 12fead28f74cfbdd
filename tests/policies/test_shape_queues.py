"""The pending queue's best-first reads agree with sorting the pending jobs by (key, index)."""

from __future__ import annotations

import heapq

from hypothesis import given, settings
from hypothesis import strategies as st

from acmesim.policies.scheduling._shapes import Capacity, ShapeQueues, sorted_entries


class Pending:
    """The fields of a job that queueing reads."""

    def __init__(self, index: int, gpus: int) -> None:
        self.index = index
        self.pool = "gpu"
        self.gpu_num = gpus
        self.nodes_needed = max(1, gpus // 8)
        self.per_node = min(gpus, 8)


operations = st.lists(st.tuples(st.booleans(), st.integers(0, 12), st.integers(0, 5),
                                st.sampled_from([1, 2, 8, 16])), min_size=0, max_size=400)


@settings(max_examples=150, deadline=None)
@given(ops=operations, limit=st.integers(0, 10))
def test_in_order_and_peek_are_the_sorted_pending_jobs(ops, limit):
    queue = ShapeQueues()
    jobs: dict[int, Pending] = {}
    keys: dict[int, int] = {}
    for push, index, key, gpus in ops:
        job = jobs.setdefault(index, Pending(index, gpus))
        if push:
            queue.push(job, key, lane=key % 2)
            keys[index] = key
        else:
            queue.remove(job)
            keys.pop(index, None)
        # many removals and re-pushes: removed entries are left inside the shapes' heaps
        want = [jobs[i] for _, i in sorted((k, i) for i, k in keys.items())]
        assert queue.in_order(limit) == want[:limit]
        assert queue.peek() is (want[0] if want else None)
        assert len(queue) == len(want)


def test_removed_entries_below_the_best_job_are_skipped():
    queue = ShapeQueues()
    best = Pending(0, 8)
    queue.push(best, 0)
    kept = []
    for index in range(1, 400):
        job = Pending(index, 1 + index % 2)
        queue.push(job, 10 + index % 7)
        if index % 50:
            queue.remove(job)  # stays in its shape's heap below the best job
        else:
            kept.append(job)
    want = [best, *sorted(kept, key=lambda j: (10 + j.index % 7, j.index))]
    assert queue.in_order(20) == want


@settings(max_examples=100, deadline=None)
@given(ops=operations)
def test_the_heaps_are_emptied_with_the_queue_and_best_is_the_lowest_fitting_job(ops):
    """Once the last pending job is removed no heap entry is left; ``best`` is always the
    lowest (key, index) pending job whose shape the counts admit (an oracle over every job)."""
    queue = ShapeQueues()
    jobs: dict[int, Pending] = {}
    keys: dict[int, int] = {}
    capacity = Capacity.__new__(Capacity)
    capacity.gpus_per_node, capacity.max_single, capacity.whole = 8, 2, 1
    for push, index, key, gpus in ops:
        job = jobs.setdefault(index, Pending(index, gpus))
        if push:
            queue.push(job, key, lane=key % 2)
            keys[index] = key
        else:
            queue.remove(job)
            keys.pop(index, None)
        if not keys:
            assert not queue.heaps
        fitting = sorted((k, i) for i, k in keys.items() if capacity.admits(jobs[i]))
        want = jobs[fitting[0][1]] if fitting else None
        assert queue.best(_FitsAll(), capacity) is want


class _FitsAll:
    """A view whose placement accepts every job the counts admit."""

    def fits(self, job: Pending) -> bool:
        return True


def test_a_lone_pending_job_stays_off_the_heaps_until_a_second_one_is_queued():
    queue = ShapeQueues()
    first, second = Pending(0, 8), Pending(1, 1)
    queue.push(first, 5)
    assert queue.peek() is first and queue.in_order(3) == [first]
    assert not queue.heaps  # no heap push for the only pending job
    queue.push(second, 1)  # the first job goes onto the heaps with the second
    assert sum(map(len, queue.heaps.values())) == 2 and queue.in_order(3) == [second, first]
    queue.remove(second)
    queue.remove(first)
    assert queue.lone is None and not queue.heaps


def test_sorted_entries_walks_a_hand_made_pair_of_heaps():
    """Two heaps whose roots are removed: their pending children still come out, in order."""
    gone = [[0, 0, 0, None], [1, 1, 1, None]]
    a = [gone[0], [5, 2, 2, "a5"], [3, 3, 3, "a3"]]
    b = [gone[1], [2, 4, 4, "b2"], [7, 5, 5, "b7"], [4, 6, 6, "b4"]]
    heaps = [a, b]
    before = [list(heap) for heap in heaps]
    taken = [entry[3] for entry in sorted_entries(heaps, 3)]
    assert taken == ["b2", "a3", "b4"]
    assert [entry[3] for entry in sorted_entries(heaps, 10)] == ["b2", "a3", "b4", "a5", "b7"]
    assert heaps == before  # read, not changed


heaps_of_entries = st.lists(st.lists(st.tuples(st.integers(0, 6), st.booleans()), max_size=30),
                            max_size=5)


@settings(max_examples=200, deadline=None)
@given(heaps=heaps_of_entries, limit=st.integers(0, 40))
def test_sorted_entries_are_the_lowest_pending_entries(heaps, limit):
    """Oracle: every pending entry of every heap sorted, the first ``limit`` of them."""
    built: list[list[list]] = []
    number = 0
    for spec in heaps:
        heap: list[list] = []
        for key, removed in spec:
            heapq.heappush(heap, [key, number, number, None if removed else f"j{number}"])
            number += 1
        built.append(heap)
    want = sorted(entry for heap in built for entry in heap if entry[3] is not None)[:limit]
    assert sorted_entries(built, limit) == want
