"""BERT for SQuAD as NVIDIA DeepLearningExamples' PyTorch/LanguageModeling/BERT runs it (the
code of Lambda's GPU benchmark, configs/frameworks/dle-squad.ini), for torch_layer_profile.py:
where eager BERT's time goes on a GPU (issue 37: the model puts 0.8 of its step on the memory,
Lambda's H100 and H200 runs say 0.3-0.6; docs/accuracy-gpus.md). Import after require_torch().

Written from the example's modeling.py, not copied: post-norm layers of nn.Linear,
nn.LayerNorm, GELU (tanh form; the benchmark's patch leaves the fused bias-GELU out) and
dropout 0.1; its own attention, each step a kernel: two batched products (torch.bmm), the
division by sqrt(d), the additive mask, softmax and dropout on the probabilities. The attention
core is a leaf module of its own (attention.self.core) so that the profiler names its ops'
module; the projections stay nn.Linear leaves under the names modeling.py gives them. The
SQuAD head is a linear to start and end logits, the loss the mean of their cross entropies.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

# name: (hidden, layers, heads, intermediate); 512 positions; the vocabulary of bert-*-uncased,
# 30522, padded to a multiple of 8 as run_squad.py pads it
NETS = {"bert_base": (768, 12, 12, 3072), "bert_large": (1024, 24, 16, 4096)}
VOCAB, POSITIONS, DROPOUT = 30528, 512, 0.1
# the parameters Lambda's runs logged (model_weights_num, pytorch/results_v2/ at aa5addb6)
LOGGED_PARAMETERS = {"bert_base": 109488386, "bert_large": 335150082}


class Embeddings(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, hidden)
        self.position_embeddings = nn.Embedding(POSITIONS, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(DROPOUT)

    def forward(self, ids, types):
        pos = torch.arange(ids.size(1), device=ids.device).unsqueeze(0).expand_as(ids)
        x = self.word_embeddings(ids) + self.position_embeddings(pos) + \
            self.token_type_embeddings(types)
        return self.dropout(self.LayerNorm(x))


class AttentionCore(nn.Module):
    """softmax(Q K^T / sqrt(d) + mask) V with dropout on the probabilities, in modeling.py's
    order and kernels: activations sequence-first (seq, batch, hidden), so that the heads are
    strided views for torch.bmm and only the context is copied back."""

    def __init__(self, heads):
        super().__init__()
        self.heads = heads

    def forward(self, q, k, v, mask):
        s, b, h = q.shape
        d = h // self.heads
        q = q.view(s, b * self.heads, d).transpose(0, 1)
        k = k.view(s, b * self.heads, d).permute(1, 2, 0)
        v = v.view(s, b * self.heads, d).transpose(0, 1)
        scores = torch.bmm(q, k).view(b, self.heads, s, s)
        scores = scores / math.sqrt(d)
        scores = scores + mask
        probs = F.dropout(F.softmax(scores, dim=-1), DROPOUT, self.training)
        ctx = torch.bmm(probs.view(b * self.heads, s, s), v)
        return ctx.transpose(0, 1).contiguous().view(s, b, h)


class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.core = AttentionCore(heads)

    def forward(self, x, mask):
        return self.core(self.query(x), self.key(x), self.value(x), mask)


class Output(nn.Module):
    """dense, dropout, the residual add and LayerNorm (BertSelfOutput, BertOutput)."""

    def __init__(self, inner, hidden):
        super().__init__()
        self.dense = nn.Linear(inner, hidden)
        self.dropout = nn.Dropout(DROPOUT)
        self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x, residual):
        return self.LayerNorm(self.dropout(self.dense(x)) + residual)


class Attention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        setattr(self, "self", SelfAttention(hidden, heads))
        self.output = Output(hidden, hidden)

    def forward(self, x, mask):
        return self.output(getattr(self, "self")(x, mask), x)


class Intermediate(nn.Module):
    def __init__(self, hidden, inner):
        super().__init__()
        self.dense = nn.Linear(hidden, inner)
        self.intermediate_act_fn = nn.GELU(approximate="tanh")

    def forward(self, x):
        return self.intermediate_act_fn(self.dense(x))


class Layer(nn.Module):
    def __init__(self, hidden, heads, inner):
        super().__init__()
        self.attention = Attention(hidden, heads)
        self.intermediate = Intermediate(hidden, inner)
        self.output = Output(inner, hidden)

    def forward(self, x, mask):
        a = self.attention(x, mask)
        return self.output(self.intermediate(a), a)


class Encoder(nn.Module):
    def __init__(self, hidden, layers, heads, inner):
        super().__init__()
        self.layer = nn.ModuleList(Layer(hidden, heads, inner) for _ in range(layers))

    def forward(self, x, mask):
        x = x.transpose(0, 1)  # sequence-first inside, as modeling.py's encoder
        for layer in self.layer:
            x = layer(x, mask)
        return x.transpose(0, 1).contiguous()


class Pooler(nn.Module):
    """dense and tanh on the first token: modeling.py's BertModel runs it though SQuAD's loss
    does not read it."""

    def __init__(self, hidden):
        super().__init__()
        self.dense = nn.Linear(hidden, hidden)
        self.activation = nn.Tanh()

    def forward(self, x):
        return self.activation(self.dense(x[:, 0]))


class Bert(nn.Module):
    def __init__(self, hidden, layers, heads, inner):
        super().__init__()
        self.embeddings = Embeddings(hidden)
        self.encoder = Encoder(hidden, layers, heads, inner)
        self.pooler = Pooler(hidden)

    def forward(self, ids, types, mask):
        x = self.encoder(self.embeddings(ids, types), mask)
        self.pooler(x)
        return x


class BertForQuestionAnswering(nn.Module):
    def __init__(self, hidden, layers, heads, inner):
        super().__init__()
        self.bert = Bert(hidden, layers, heads, inner)
        self.qa_outputs = nn.Linear(hidden, 2)

    def forward(self, ids, types, mask):
        return self.qa_outputs(self.bert(ids, types, mask))


def build(name):
    """The untrained network `name` of NETS."""
    return BertForQuestionAnswering(*NETS[name])


def inputs(batch, seq, device, dtype):
    """A SQuAD-shaped batch: token ids, token types (question then context), the additive
    mask of modeling.py (0 where attended; every token here) in the model's dtype, and the
    answers' start and end positions."""
    ids = torch.randint(0, VOCAB, (batch, seq), device=device)
    types = torch.zeros(batch, seq, dtype=torch.long, device=device)
    types[:, seq // 4:] = 1
    mask = torch.zeros(batch, 1, 1, seq, dtype=dtype, device=device)
    answers = torch.randint(0, seq, (2, batch), device=device)
    return (ids, types, mask), answers


def squad_loss(logits, answers):
    """(cross entropy of the start logits + that of the end logits) / 2, as run_squad.py."""
    start, end = logits.float().unbind(dim=-1)
    return (F.cross_entropy(start, answers[0]) + F.cross_entropy(end, answers[1])) / 2
