"""The tiny evaluation set-up shared by the hand-computed evaluation tests.

One node of 2 GPUs and 16 CPU threads; an 8 Gb/s NIC and 4 GB/s host-to-GPU copies; a 1e9-parameter
fp16 model (2 GB), so a remote load alone takes 2 s and a local one 0.5 s.
"""

from acmesim.evaluation import EvalCluster, ModelSpec

CLUSTER = EvalCluster(nodes=1, gpus_per_node=2, cpu_threads_per_node=16, nic_gbps=8.0,
                      host_to_gpu_gbytes_per_s=4.0, trial_cpu_threads=4, metric_cpu_threads=4)
MODEL = ModelSpec("m", params=1e9, bytes_per_param=2.0)
