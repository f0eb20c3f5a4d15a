# SPDX-License-Identifier: BSD-3-Clause
"""torch_ckpt.py DIR SAVES EVERY STEP_S -- a PyTorch training loop that saves
its model with torch.save(obj, path) (a C++ stream inside PyTorch) every
EVERY steps of STEP_S seconds, SAVES times, to DIR/ckpt_<step>.pt, and logs
its own save times to DIR/saves.log ("<start> <end>" epoch seconds per
save): the truth tests/shim/every_byte.sh compares ftiod's answer with."""
import sys
import time

import torch

out, saves, every, step_s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 16))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(64, 1024), torch.randn(64, 16)
log = open(f"{out}/saves.log", "w")
step = 0
next_step = time.monotonic()
while saves > 0:
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    step += 1
    next_step += step_s
    time.sleep(max(0.0, next_step - time.monotonic()))
    if step % every == 0:
        t0 = time.time()
        torch.save(model.state_dict(), f"{out}/ckpt_{step}.pt")
        t1 = time.time()
        log.write(f"{t0:.6f} {t1:.6f}\n")
        log.flush()
        saves -= 1
