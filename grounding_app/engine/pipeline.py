"""check(request) -> response: claims, evidence, verdicts, citations.

Data flows one way: the answer is split into sentences (claims); each claim that needs
a check is read with the sentences before it, candidate passages are found in the
facts, the judge scores the claim against the best passages of each fact (and, when no
single fact supports it, of the two best facts together, for support spread over two
facts), and the facts whose support reaches the citation threshold are cited.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from grounding_app.engine.aggregate import AGGREGATOR_WEIGHTS, Aggregator, logit
from grounding_app.engine.checks import (
    CONTRADICTION,
    HEDGE,
    NUMBER,
    ROLE,
    Reading,
    fired,
    record_flag,
    registry,
)
from grounding_app.engine.checks.record_flag import record_states
from grounding_app.engine.claim_work import _Context, _context, _readable, _Verdict
from grounding_app.engine.claims import (
    asserted_statement,
    split_claims,
    strip_list_marker,
    unchecked_reason,
)
from grounding_app.engine.encoders import Encoder, EncodingCache, MemoEncoder, MiniLMEncoder
from grounding_app.engine.escalation import Escalated, Escalation, Outcome, Ruling
from grounding_app.engine.evidence import (
    _Candidate,
    _evidence_options,
    _position,
    _relevance,
    _shown,
    _supporting,
)
from grounding_app.engine.evidence import is_bookkeeping as is_bookkeeping
from grounding_app.engine.judges import ClaimInContext, Evidence, FeatureJudge, Judge
from grounding_app.engine.lang import identify, profile
from grounding_app.engine.lang.numbers import align_values
from grounding_app.engine.lexical import (
    compare,
    resolve_reference,
)
from grounding_app.engine.normalise import (
    align_dates,
    align_numbers,
)
from grounding_app.engine.retrieval import Passage, PassageIndex
from grounding_app.engine.roles import proper_names
from grounding_app.engine.types import (
    FEATURE_JUDGE,
    FEATURE_JUDGE_LANGUAGES,
    LLM_JUDGE,
    VERIFIER,
    WORD_MATCHING,
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    Penalties,
)
from grounding_app.engine.unsupported import ClaimToExplain, unsupported_spans
from grounding_app.engine.word_match import WordMatchJudge

# A claim's evidence options are read best first until one scores this much; the rest
# could only raise a score already above every threshold a reviewer sets in practice.
# A constant, not the request's citation threshold: the threshold decides which facts
# are cited and which claims count as supported, never a claim's score.
ENOUGH_SUPPORT = 0.9


@dataclass(frozen=True)
class Settings:
    candidates_per_query: int = 4
    facts_per_claim: int = 3
    passages_per_fact: int = 3
    # Passages this far below a fact's best match are not worth showing the judge, nor
    # facts this far below the best fact's (cosine). On the benchmark's everyday request
    # the runner-up facts of copied sentences sit 0.55-1.0 below; in the SPEC film
    # example, where two facts share the topic, 0.06-0.13.
    passage_margin: float = 0.2
    fact_margin: float = 0.5
    # A structured fact's statements are a few words each ("reservations: yes."), and
    # its first one names what the record is about: that many of its best statements
    # are shown, those sharing a word with the claim first, and the first one with them.
    statements_per_fact: int = 4
    # Evidence that contradicts a claim in ways the judge does not see: another name or
    # number where the claim has one it lacks (`lexical.substitutes`), or a record's yes
    # or no the other way round (`checks/record_flag.py:flag_disagrees`). The judge's
    # odds are cut by e^this: the verifier's price (`types.Penalties`, set by its
    # verifier.json).
    contradiction_penalty: float = Penalties.contradiction
    # Evidence that gives the claim's action to another name (`roles.misattributes`) or
    # hedges what the claim states flatly (`hedges.drops_hedge`). The role flag fires on
    # 1 % of dev_realistic's examples (25 of 27 unsupported), the hedge flag on one; the
    # verifier reads these claims at 0.96-0.99, so the judge's odds are cut by e^this,
    # enough to bring 0.99 below the threshold 0.6.
    role_penalty: float = 5.0
    hedge_penalty: float = 5.0
    # A number of the claim the evidence does not state (`checks/numbers.py`): SPEC §1
    # counts the claim as only partly true. The verifier misses some of these, and its
    # `verifier.json` sets the price (`Penalties.missing_number`, 3.5 for the shipped
    # one); the feature judge weighs the same comparison as a fitted feature of its own,
    # so by default (no price set) it costs nothing here.
    number_penalty: float = Penalties.missing_number
    # A claim that states no more than a record's yes or no (`record_flag.record_states`):
    # the verifier reads "Customers can make reservations." against "restaurants
    # reservations: yes." at 0.25-0.45, never having seen a record. Its odds are raised
    # by e^this, lifting 0.25 to 0.86, when no check finds the evidence contradicting it.
    record_support: float = 3.0
    # Same-fact sentences shown on each side of each chosen passage, read but never
    # cited: the paragraph around the best match, for a judge that reads long windows.
    neighbours: int = 0


@dataclass(frozen=True)
class _ClaimBatch:
    """The claims of one request that the judge reads, row by row, with what every rank of
    their evidence options needs again."""

    request: CheckRequest
    index: PassageIndex
    order: list[int]  # the claim id of each row
    claims: list[str]
    languages: list[str]
    queries: list[ClaimInContext]
    readings: list[ClaimInContext]  # as the judge reads them (`GroundingEngine._reading`)
    names: frozenset[str]
    memo: MemoEncoder


def parse_judge(spec: str) -> tuple[str, Path | None]:
    """'verifier', 'features' or 'verifier:DIR' -> (name, DIR or None)."""
    name, sep, directory = spec.partition(":")
    if name == "verifier":
        return name, Path(directory) if sep else None
    if name == "features" and not sep:
        return name, None
    raise ValueError(f"unknown judge {spec!r}: use 'verifier', 'verifier:DIR' or 'features'")


def _settled(judged: Sequence[tuple[float, _Candidate]]) -> bool:
    return any(score >= ENOUGH_SUPPORT for score, _ in judged)


def _discount(probability: float, penalty: float) -> float:
    """``probability`` with its log-odds lowered by ``penalty``."""
    return probability / (probability + (1.0 - probability) * math.exp(penalty))


def _escalate(
    escalation: Escalation,
    claims: dict[int, tuple[str, str, str]],
    verdicts: dict[int, _Verdict],
    unread: Collection[int],
) -> dict[int, Outcome]:
    """The outcomes of the claims (text, context, language by id) whose score lies in the
    escalation's band, and of the `unread` ones (word-matched) it takes whatever their
    score; a ruling replaces the claim's verdict in `verdicts` (score 1 or 0, citing the
    passage named)."""
    order = [
        i
        for i in claims
        if (
            escalation.takes_unread(claims[i][2])
            if i in unread
            else escalation.wants(verdicts[i].score)
        )
    ]
    items = [
        Escalated(
            claim=claims[i][0],
            context=claims[i][1],
            evidence=tuple(_readable(p.text) for p in verdicts[i].windows),
            score=verdicts[i].score,
            language=claims[i][2],
        )
        for i in order
    ]
    outcomes = dict(zip(order, escalation.judge(items), strict=True))
    for i, outcome in outcomes.items():
        if outcome.ruling is not None:
            verdicts[i] = _ruled(verdicts[i], outcome.ruling)
    return outcomes


def _ruled(verdict: _Verdict, ruling: Ruling) -> _Verdict:
    if not ruling.supported:
        return _Verdict(0.0, [], verdict.windows)
    named = ruling.supporting_passage
    if named is not None and 0 <= named < len(verdict.windows):
        return _Verdict(1.0, [verdict.windows[named]], verdict.windows)
    return _Verdict(1.0, verdict.cited or list(verdict.windows[:1]), verdict.windows)


def _fell_back(outcome: Outcome | None) -> str | None:
    if outcome is None or outcome.fell_back is None:
        return None
    return f"fell back: {outcome.fell_back}"


def _find_word(word: str, text: str) -> tuple[int, int] | None:
    """Where the judge's word stands in the claim, as written or in another case (where
    lower-casing keeps the text's length, so indices still point into it)."""
    if not word:
        return None
    at = text.find(word)
    if at < 0 and len(text.lower()) == len(text) and len(word.lower()) == len(word):
        at = text.lower().find(word.lower())
    return (at, at + len(word)) if at >= 0 else None


def _ruled_words(
    claims: Sequence[Claim], outcomes: dict[int, Outcome]
) -> dict[int, tuple[tuple[int, int], ...]]:
    """Per claim ruled unsupported, the byte spans in the answer of the words the ruling
    named that the claim holds (claims naming none keep the lexical pass's)."""
    found: dict[int, tuple[tuple[int, int], ...]] = {}
    for i, outcome in outcomes.items():
        ruling, claim = outcome.ruling, claims[i]
        if ruling is None or ruling.supported:
            continue
        spans = set()
        for word in ruling.unsupported_words:
            hit = _find_word(word.strip(), claim.text)
            if hit is not None:
                start = claim.start + len(claim.text[: hit[0]].encode())
                spans.add((start, start + len(claim.text[hit[0] : hit[1]].encode())))
        if spans:
            found[i] = tuple(sorted(spans))
    return found


class GroundingEngine:
    """Claims, evidence, verdicts; `judge` reads `languages`, word matching the rest."""

    def __init__(
        self,
        encoder: Encoder,
        judge: Judge,
        settings: Settings | None = None,
        *,
        languages: Sequence[str] = ("en",),
        judge_kind: str | None = None,
        word_match: WordMatchJudge | None = None,
        aggregator: Aggregator | None = None,
    ) -> None:
        self.encoder = encoder
        # Passages' encodings, kept across requests (their hits and misses in /metrics).
        self.fact_encodings = EncodingCache(encoder)
        self.judge = judge
        self.settings = settings or Settings()
        self.languages = tuple(languages)
        self.judge_kind = judge_kind or (
            FEATURE_JUDGE if isinstance(judge, FeatureJudge) else VERIFIER
        )
        self.word_match = word_match or WordMatchJudge.from_file()
        self.checks = registry()
        # With an aggregator, each option's score is fitted from every judge and check;
        # `recorder` (the aggregator's fit) receives each option's features either way.
        self.aggregator = aggregator
        self.recorder: Callable[[int, tuple[float, ...]], None] | None = None
        self._feature_judge: FeatureJudge | None = None

    @property
    def verifier_id(self) -> str | None:
        """Which verifier judges ("name@sha256:<12 hex>"); None when the judge is not one."""
        judged_by = getattr(self.judge, "verifier_id", None)
        return judged_by if isinstance(judged_by, str) else None

    @classmethod
    def default(cls, judge: str = "verifier") -> GroundingEngine:
        """The bundled encoder with the trained verifier, or the zero-shot feature judge.

        `judge` may also be 'verifier:DIR', a verifier trained into DIR: how a candidate
        model is compared with the shipped one before it replaces it.
        """
        name, directory = parse_judge(judge)
        if name == "verifier":
            from grounding_app.engine.verifier.model import VERIFIER_DIR, CrossEncoderJudge

            verifier = CrossEncoderJudge(directory or VERIFIER_DIR)
            settings = Settings(
                facts_per_claim=2,
                passages_per_fact=2,
                neighbours=verifier.config.neighbours,
                contradiction_penalty=verifier.config.penalties.contradiction,
                number_penalty=verifier.config.penalties.missing_number,
            )
            aggregator = (
                Aggregator.from_file(AGGREGATOR_WEIGHTS)
                if directory is None and AGGREGATOR_WEIGHTS.is_file()
                else None
            )
            return cls(
                MiniLMEncoder(int8=True),
                verifier,
                settings,
                languages=verifier.config.languages,
                aggregator=aggregator,
            )
        encoder = MiniLMEncoder()
        return cls(encoder, FeatureJudge.from_file(encoder), languages=FEATURE_JUDGE_LANGUAGES)

    def check(self, request: CheckRequest, escalation: Escalation | None = None) -> CheckResponse:
        """The response; with `escalation`, the claims whose score lies in its band, and
        those only word matching reads if it takes them, are judged again by it
        (`escalation.py`), its rulings replacing the verdicts."""
        sentences = split_claims(request.answer)
        texts = [
            _readable(strip_list_marker(s.text if s.reading is None else s.reading))
            for s in sentences
        ]
        # Each sentence's language: a confident reading of the sentence, else the answer's.
        languages = [identify(t, request.answer, self.languages) for t in texts]
        # Why each piece is not checked: Markdown structure, else what its words are.
        reasons = [
            s.no_check_reason or unchecked_reason(t) for s, t in zip(sentences, texts, strict=True)
        ]
        required = [reason is None for reason in reasons]
        # A checked question is read as the statement it asserts ("Did you know that X?").
        texts = [
            asserted_statement(t) or t if need else t
            for t, need in zip(texts, required, strict=True)
        ]
        checked = [i for i, need in enumerate(required) if need]
        read = [i for i in checked if languages[i] in self.languages]
        matched = [i for i in checked if languages[i] not in self.languages]
        found = {i: _context(sentences, texts, required, i) for i in checked}
        # Facts are cut into passages (and indexed, when many) only for checked claims.
        index = PassageIndex(request.facts if checked else ())
        verdicts, used = self._judge_in_context(request, index, texts, read, found, languages)
        contexts = {i: found[i].text if i in used else "" for i in checked}
        verdicts.update(self._match_claims(index, {i: texts[i] for i in matched}, languages))
        checked_by = {i: self.judge_kind for i in read} | {i: WORD_MATCHING for i in matched}
        outcomes: dict[int, Outcome] = {}
        if escalation is not None:
            claims_read = {i: (texts[i], contexts[i], languages[i]) for i in read + matched}
            outcomes = _escalate(escalation, claims_read, verdicts, set(matched))
            checked_by |= {i: LLM_JUDGE for i, o in outcomes.items() if o.ruling is not None}

        chunk_index: dict[tuple[int, int, int], int] = {}
        chunks: list[CitedChunk] = []
        claims: list[Claim] = []
        for i, sentence in enumerate(sentences):
            verdict = verdicts.get(i)
            citations: list[int] = []
            if verdict is not None and verdict.score >= request.citation_threshold:
                for passage in verdict.cited:
                    key = (passage.fact, passage.start, passage.end)
                    if key not in chunk_index:
                        chunk_index[key] = len(chunks)
                        chunks.append(
                            CitedChunk(
                                chunk_text=passage.text,
                                source=passage.fact,
                                source_metadata=dict(request.facts[passage.fact].attributes),
                            )
                        )
                    citations.append(chunk_index[key])
            score = None
            if verdict is not None and request.enable_claim_level_score:
                score = verdict.score
            claims.append(
                Claim(
                    start=sentence.start,
                    end=sentence.end,
                    text=sentence.text,
                    grounding_check_required=required[i],
                    citation_indices=tuple(dict.fromkeys(citations)),
                    score=score,
                    language=languages[i] if required[i] else None,
                    checked_by=checked_by.get(i),
                    no_check_reason=reasons[i],
                    llm_judge=_fell_back(outcomes.get(i)),
                    context_claims=found[i].claims if i in used else (),
                )
            )
        claims = self._explained(request, claims, _ruled_words(claims, outcomes))
        support = float(np.mean([verdicts[i].score for i in checked])) if checked else None
        return CheckResponse(
            claims=tuple(claims), cited_chunks=tuple(chunks), support_score=support
        )

    def _explained(
        self,
        request: CheckRequest,
        claims: list[Claim],
        ruled: dict[int, tuple[tuple[int, int], ...]],
    ) -> list[Claim]:
        """The claims, each unsupported one with the spans of the words its evidence lacks:
        those an escalation's ruling named (`ruled`, by claim), else the lexical pass's."""
        explained = [
            c
            for k, c in enumerate(claims)
            if c.grounding_check_required and not c.citation_indices and k not in ruled
        ]
        spans = self.explain(
            [ClaimToExplain(c.text, c.start) for c in explained],
            [f.text for f in request.facts],
        )
        by_start = {c.start: found for c, found in zip(explained, spans, strict=True)}
        by_start.update({claims[k].start: found for k, found in ruled.items()})
        return [replace(c, unsupported=by_start.get(c.start, ())) for c in claims]

    def explain(
        self, claims: Sequence[ClaimToExplain], facts: Sequence[str], refine_budget: int = 0
    ) -> list[tuple[tuple[int, int], ...]]:
        """Per unsupported claim, the byte spans of the words its best evidence lacks.

        With a `refine_budget`, the judge (reading the claim and evidence as it reads them
        in `check`) keeps only the phrases whose masking lifts the score: at most that
        many judge inputs. Claims come from any answer, checked here or imported.
        """
        if not claims:
            return []
        return unsupported_spans(claims, facts, self._score_texts, refine_budget)

    def _score_texts(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self.judge.score(
            [(ClaimInContext(_readable(c)), Evidence((_readable(e),))) for c, e in pairs]
        )

    def _judge_in_context(
        self,
        request: CheckRequest,
        index: PassageIndex,
        texts: Sequence[str],
        read: Sequence[int],
        found: dict[int, _Context],
        languages: Sequence[str],
    ) -> tuple[dict[int, _Verdict], set[int]]:
        """The judge's verdicts on the claims `read`, and the claims whose verdict came
        from a reading with their context.

        Earlier sentences only resolve what a claim refers to: a claim that cannot be read
        alone ("It was completed in 1737.") is read with its context, and only so; one that
        may lean on it ("The tower ...", a list item after "The cast includes:") is read
        alone first and, where that falls short of `ENOUGH_SUPPORT`, with its context too,
        the better reading counting; a claim that names its subject is read alone. So a
        sentence copied from a fact scores as it does alone wherever it stands.
        """
        first = {i: found[i].text if found[i].needed else "" for i in read}
        verdicts = self._judge_claims(request, index, {i: texts[i] for i in read}, first, languages)
        used = {i for i in read if first[i]}
        again = [
            i
            for i in read
            if found[i].text and not found[i].needed and verdicts[i].score < ENOUGH_SUPPORT
        ]
        context = {i: found[i].text for i in again}
        for i, verdict in self._judge_claims(
            request, index, {i: texts[i] for i in again}, context, languages
        ).items():
            if verdict.score > verdicts[i].score:
                verdicts[i] = verdict
                used.add(i)
        return verdicts, used

    def _match_claims(
        self, index: PassageIndex, claims: dict[int, str], languages: Sequence[str]
    ) -> dict[int, _Verdict]:
        """Claims in a language the judge does not read, judged by word matching.

        Each candidate passage is read alone, and a fact's candidates together (support
        spread over its sentences); the best reading is the score, and cites its passages.
        """
        if not claims:
            return {}
        if not index.passages:
            return {i: _Verdict(0.0, []) for i in claims}
        order = list(claims)
        pools = index.candidates([claims[i] for i in order], self.settings.candidates_per_query)
        penalties = self._penalties()
        # The word-matching judge weighs the numbers comparison as its own fitted feature:
        # the numbers check is not run beside it.
        checks = tuple(c for c in self.checks if c.kind != NUMBER)
        fact_passages: dict[int, list[Passage]] = {}
        for passage in sorted(index.passages, key=_position):
            fact_passages.setdefault(passage.fact, []).append(passage)
        verdicts: dict[int, _Verdict] = {}
        for claim_id, pool in zip(order, pools, strict=True):
            passages = [index.passages[p] for p in pool]
            options = [[p] for p in passages]
            by_fact: dict[int, list[Passage]] = {}
            for passage in sorted(passages, key=_position):
                by_fact.setdefault(passage.fact, []).append(passage)
            options += [group for group in by_fact.values() if len(group) > 1]
            if not options:
                verdicts[claim_id] = _Verdict(0.0, [])
                continue
            texts = [" ".join(_readable(p.text) for p in option) for option in options]
            language = languages[claim_id]
            scores = self.word_match.score(claims[claim_id], texts, profile(language))
            # The checks read the whole of each fact an option comes from: a word swapped
            # in from the fact's next sentence is "elsewhere in the evidence".
            kinds: dict[tuple[int, ...], set[str]] = {}
            for k, option in enumerate(options):
                facts = tuple(sorted({p.fact for p in option}))
                if facts not in kinds:
                    reading = Reading(
                        claims[claim_id],
                        tuple(_readable(p.text) for f in facts for p in fact_passages[f]),
                        language=language,
                    )
                    kinds[facts] = fired(reading, language, checks)
                for kind in sorted(kinds[facts]):
                    scores[k] = _discount(scores[k], penalties[kind])
            best = max(range(len(options)), key=lambda k: scores[k])
            # An escalation reads every candidate: word matching's pick may miss the one.
            windows = tuple(sorted(passages, key=_position))
            verdicts[claim_id] = _Verdict(scores[best], list(options[best]), windows)
        return verdicts

    def _penalties(self) -> dict[str, float]:
        """Each check kind's penalty, in logits."""
        settings = self.settings
        return {
            CONTRADICTION: settings.contradiction_penalty,
            ROLE: settings.role_penalty,
            HEDGE: settings.hedge_penalty,
            NUMBER: settings.number_penalty,
        }

    def _judge_claims(
        self,
        request: CheckRequest,
        index: PassageIndex,
        claims: dict[int, str],
        contexts: dict[int, str],
        languages: Sequence[str],
    ) -> dict[int, _Verdict]:
        if not claims:
            return {}
        settings = self.settings
        if not index.passages:
            return {i: _Verdict(0.0, []) for i in claims}
        order = list(claims)
        in_context = [f"{contexts[i]} {claims[i]}".strip() for i in order]
        plain = index.candidates([claims[i] for i in order], settings.candidates_per_query)
        wide = index.candidates(in_context, settings.candidates_per_query)
        pools = [list(dict.fromkeys(a + b)) for a, b in zip(plain, wide, strict=True)]

        memo = MemoEncoder(self.encoder, self.fact_encodings)
        relevance = _relevance(index, pools, [claims[i] for i in order], in_context, memo)
        candidates = [
            _evidence_options(self.settings, index, claims[claim_id], pools[row], relevance[row])
            for row, claim_id in enumerate(order)
        ]
        queries = [ClaimInContext(claims[i], contexts[i]) for i in order]
        # The names of the facts the evidence comes from, for the role check.
        read = sorted({f for options in candidates for option in options for f in option.facts})
        names = proper_names([request.facts[f].text for f in read])
        batch = _ClaimBatch(
            request,
            index,
            order,
            [claims[i] for i in order],
            [languages[i] for i in order],
            queries,
            # A lower-case claim's leading pronoun, resolved through the facts' names, is
            # read alone like a capitalised one the judge resolves itself: the context's
            # other words (a previous sentence's wrong year) then add or take nothing.
            [self._reading(query, names) for query in queries],
            names,
            memo,
        )
        # Options in rank order (best fact, next fact, both together); each is read only
        # for claims that no earlier option supports beyond doubt (`ENOUGH_SUPPORT`), so
        # well-supported claims (most of them) cost one judge input.
        judged: list[list[tuple[float, _Candidate]]] = [[] for _ in order]
        for rank in range(max((len(options) for options in candidates), default=0)):
            todo = [
                (row, options[rank])
                for row, options in enumerate(candidates)
                if rank < len(options) and not _settled(judged[row])
            ]
            if not todo:
                break
            for (row, option), score in zip(todo, self._judge_rank(batch, todo), strict=True):
                judged[row].append((score, option))
        return {
            claim_id: self._best_option(claims[claim_id], judged[row])
            for row, claim_id in enumerate(order)
        }

    def _judge_rank(
        self, batch: _ClaimBatch, todo: Sequence[tuple[int, _Candidate]]
    ) -> list[float]:
        """One option each for the claims in `todo` (rows of the batch), judged in one call
        and discounted by the checks that fire on it."""
        pairs = []
        for row, option in todo:
            evidence = _shown(batch.request, option, bool(batch.queries[row].context))
            query = batch.readings[row]
            aligned = align_values(
                align_numbers(align_dates(query.claim, evidence.text), evidence.text),
                evidence.passages,
                batch.languages[row],
            )
            pairs.append((ClaimInContext(aligned, query.context), evidence))
        scores = self.judge.score(pairs, batch.memo)
        others = self._other_judges(pairs, [batch.languages[row] for row, _ in todo], batch.memo)
        return [
            self._checked_score(
                batch, row, option, pair, score, None if others is None else others[k]
            )
            for k, ((row, option), pair, score) in enumerate(zip(todo, pairs, scores, strict=True))
        ]

    def _checked_score(
        self,
        batch: _ClaimBatch,
        row: int,
        option: _Candidate,
        pair: tuple[ClaimInContext, Evidence],
        score: float,
        others: tuple[float, float] | None,
    ) -> float:
        """The judge's score of one option after the checks: the aggregator's where there is
        one, else discounted by each check's penalty (and raised where a record states it)."""
        claim, (aligned, evidence) = batch.claims[row], pair
        language = batch.languages[row]
        facts = batch.request.facts
        reading = Reading(
            claim,
            evidence.passages,
            dated=align_dates(claim, evidence.text),
            statements=tuple(p.text for p in option.passages if p.fact in batch.index.structured),
            names=batch.names,
            language=language,
            facts=tuple(facts[f].text for f in option.facts if f not in batch.index.structured),
        )
        kinds = fired(reading, language, self.checks)
        if others is not None:
            # The verifier's own penalties, for a fit that weighs them anew.
            lexical = compare(aligned.claim, evidence.text)
            features = (
                logit(score),
                *others,
                *(float(kind in kinds) for kind in (CONTRADICTION, ROLE, HEDGE)),
                float(NUMBER in kinds),
                float(min(lexical.missing_names, 3)),
            )
            if self.recorder is not None:
                self.recorder(batch.order[row], features)
            if self.aggregator is not None:
                return self.aggregator.score(features)
        penalties = self._penalties()
        for kind in sorted(kinds):
            score = _discount(score, penalties[kind])
        if not kinds and self._reads_records(reading):
            score = _discount(score, -self.settings.record_support)
        return score

    @staticmethod
    def _best_option(claim: str, judged: Sequence[tuple[float, _Candidate]]) -> _Verdict:
        """The best option read is the claim's support and what it cites."""
        if not judged:
            return _Verdict(0.0, [])
        best, option = max(judged, key=lambda item: item[0])
        windows = set(option.passages + option.around + option.leads)
        return _Verdict(
            best, _supporting(claim, option.passages), tuple(sorted(windows, key=_position))
        )

    def _other_judges(
        self,
        pairs: Sequence[tuple[ClaimInContext, Evidence]],
        languages: Sequence[str],
        memo: MemoEncoder,
    ) -> list[tuple[float, float]] | None:
        """The feature judge's and word matching's logits per pair, where an aggregator
        or a recorder needs them (else None: they cost a few ms a request)."""
        if self.aggregator is None and self.recorder is None:
            return None
        if self._feature_judge is None:
            self._feature_judge = FeatureJudge.from_file(self.encoder)
        features = self._feature_judge.features(pairs, memo)
        feature_logits = features @ self._feature_judge.weights + self._feature_judge.bias
        return [
            (float(f), self.word_match.logits(claim.claim, [evidence.text], profile(code))[0])
            for f, (claim, evidence), code in zip(feature_logits, pairs, languages, strict=True)
        ]

    def _reads_records(self, reading: Reading) -> bool:
        """Whether a record's yes or no states the claim, in a language read for it."""
        return reading.language in record_flag.CHECK.languages and record_states(
            reading.claim, reading.statements
        )

    @staticmethod
    def _reading(query: ClaimInContext, names: frozenset[str]) -> ClaimInContext:
        """The claim as the judge reads it: with its pronoun resolved through `names` when
        the context is in lower case, else as it is (the judge resolves capitals)."""
        if not query.context or resolve_reference(query.claim, query.context) is not None:
            return query
        resolved = resolve_reference(query.claim, query.context, names)
        return query if resolved is None else ClaimInContext(resolved)
