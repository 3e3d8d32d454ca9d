"""A reference computed with an op that exists only on a real NPU."""

import torch
import torch_npu

q = torch.randn(1, 2, 16, 8, device="npu")
ref = torch_npu.npu_fusion_attention(q, q, q, 2, "BNSD")
