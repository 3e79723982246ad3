"""Sequence models the zoo lacks, for tests/test_export_torch.py: recurrent, attention and
transformer modules of torch.nn put together as users do. Each class notes its input (token ids,
--input-dtype long, or a sequence of features) and its multiply-accumulates per sample, derived
by hand from PyTorch's definitions (docs/plugins.md gives the same formulas):

  Linear(E, F) on S rows     S E F
  LSTM/GRU/RNN (G = 4/3/1)   S G H (E_k + H) per layer k and direction, E_k = E, then D H
  MultiheadAttention(E)      4 S E^2 + 2 S^2 E (projections, scores, context); against a
                             memory of M rows 2 S E^2 + 2 M E^2 + 2 S M E
  Embedding, norms, adds     no multiply-accumulates

Parameters are not listed: the test compares them with sum(p.numel()) of the module itself.
"""
import torch
from torch import nn


class LSTMClassifier(nn.Module):
    """Token ids (16) -> embedding -> 2-layer bidirectional LSTM -> last step -> classes.
    MACs, S = 16: layer 0: 2 dirs x 16 x 4 x 64 x (32 + 64) = 786,432; layer 1: 2 x 16 x 4 x 64
    x (128 + 64) = 1,572,864; fc 128 x 5 = 640. Total 2,359,936."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(1000, 32)
        self.lstm = nn.LSTM(32, 64, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(128, 5)

    def forward(self, x):
        out, _ = self.lstm(self.embed(x))
        return self.fc(out[:, -1])


class GRUSequenceFirst(nn.Module):
    """Token ids (12) -> embedding -> transpose to sequence-first -> GRU -> h_n[-1] -> classes.
    MACs, S = 12: GRU 12 x 3 x 24 x (16 + 24) = 34,560; fc 24 x 3 = 72. Total 34,632."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(500, 16)
        self.gru = nn.GRU(16, 24)  # batch_first=False: input S x N x E
        self.fc = nn.Linear(24, 3)

    def forward(self, x):
        _, h = self.gru(self.embed(x).transpose(0, 1))
        return self.fc(h[-1])


class StackedRNN(nn.Module):
    """Features (10 x 8) -> 2-layer ReLU RNN without bias -> h_n of the last layer -> linear.
    MACs, S = 10: layer 0: 10 x 12 x (8 + 12) = 2,400; layer 1: 10 x 12 x (12 + 12) = 2,880;
    fc 12 x 4 = 48. Total 5,328."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(8, 12, num_layers=2, nonlinearity="relu", bias=False, batch_first=True)
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.fc(h[-1])


class BiLSTMFinalStates(nn.Module):
    """Features (6 x 5) -> bidirectional LSTM -> both final states concatenated -> linear, the
    usual torch.cat((h_n[-2], h_n[-1]), dim=1). MACs, S = 6: 2 x 6 x 4 x 7 x (5 + 7) = 4,032;
    fc 14 x 2 = 28. Total 4,060."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 7, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(14, 2)

    def forward(self, x):
        _, (h, _) = self.lstm(x)
        return self.fc(torch.cat((h[-2], h[-1]), dim=1))


class SelfAttention(nn.Module):
    """Features (9 x 16) -> nn.MultiheadAttention(16, 4) on itself (batch_first) + residual ->
    LayerNorm -> first position -> linear. MACs, S = 9, E = 16: attention 4 x 9 x 256 + 2 x 81
    x 16 = 11,808; fc 16 x 2 = 32. Total 11,840."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, batch_first=True)
        self.norm = nn.LayerNorm(16)
        self.fc = nn.Linear(16, 2)

    def forward(self, x):
        a, _ = self.attn(x, x, x, need_weights=False)
        return self.fc(self.norm(x + a)[:, 0])


class SelfAttentionWithWeights(SelfAttention):
    """SelfAttention asking for the attention weights (need_weights defaults to True), which
    PyTorch computes eagerly: the same MACs, 11,840."""

    def forward(self, x):
        a, _ = self.attn(x, x, x)
        return self.fc(self.norm(x + a)[:, 0])


class TinyEncoder(nn.Module):
    """Token ids (20) -> embedding -> nn.TransformerEncoder of 2 nn.TransformerEncoderLayer(64,
    4, 128, batch_first) -> first token -> classes. MACs, S = 20, E = 64: per layer attention
    4 x 20 x 4,096 + 2 x 400 x 64 = 378,880 and feed-forward 2 x 20 x 64 x 128 = 327,680, so
    706,560; two layers 1,413,120; fc 64 x 10 = 640. Total 1,413,760."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(1000, 64)
        layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc(self.encoder(self.embed(x))[:, 0])


class PreNormEncoderSequenceFirst(nn.Module):
    """Features (7 x 32), made sequence-first, through one nn.TransformerEncoderLayer(32, 2, 64,
    norm_first, gelu) in PyTorch's default sequence-first layout, and back. MACs, S = 7, E = 32:
    attention 4 x 7 x 1,024 + 2 x 49 x 32 = 31,808; feed-forward 2 x 7 x 32 x 64 = 28,672.
    Total 60,480."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(32, 2, 64, activation="gelu", norm_first=True)

    def forward(self, x):
        return self.layer(x.transpose(0, 1)).transpose(0, 1)


class TinyEncoderDecoder(nn.Module):
    """Token ids (10): an encoder layer over one embedding, a decoder layer over another that
    attends to the encoder's output (its memory), then a vocabulary head. E = 32, 4 heads,
    feed-forward 64, S = M = 10. MACs: encoder 4 x 10 x 1,024 + 2 x 100 x 32 + 2 x 10 x 32 x 64
    = 88,320; decoder self-attention 47,360, cross-attention 2 x 10 x 1,024 + 2 x 10 x 1,024 + 2
    x 10 x 10 x 32 = 47,360, feed-forward 40,960, so 135,680; head 10 x 32 x 100 = 32,000.
    Total 255,616."""

    def __init__(self):
        super().__init__()
        self.src_embed = nn.Embedding(100, 32)
        self.tgt_embed = nn.Embedding(100, 32)
        self.encoder = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
        self.decoder = nn.TransformerDecoderLayer(32, 4, 64, batch_first=True)
        self.head = nn.Linear(32, 100)

    def forward(self, x):
        memory = self.encoder(self.src_embed(x))
        return self.head(self.decoder(self.tgt_embed(x), memory))


class FinalCellState(nn.Module):
    """Uses the LSTM's cell state c_n, which no layer gives: the export must refuse it, naming
    the module and the use."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, batch_first=True)
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        _, (_, c) = self.lstm(x)
        return self.fc(c[-1])


class DataDependentBranch(nn.Module):
    """Python control flow on a tensor's value in a module without a rule: torch.fx cannot trace
    it, and the error must name the module path and the line."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.gate = Gate()

    def forward(self, x):
        return self.gate(self.fc(x))


class Gate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return torch.relu(x)
        return x
