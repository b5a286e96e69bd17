"""check(request) -> response: the steps of a check, each claim's record passed along.

Data flows one way: the answer is split into pieces, each a `ClaimWork` record
(`claim_work.py`: what the judge reads of it, its language, why it is not checked, its
context); candidate passages of the facts are found for each checked claim and grouped
into evidence options (`evidence.py`); the judge scores the claim against them in rank
order (best fact, next fact, both together, for support spread over two facts), the
checks lowering the odds, or word matching reads a claim in a language the judge does
not; an escalation may rule on a claim again; `response.py` writes the response, citing
the facts whose support reaches the citation threshold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grounding_app.engine.aggregate import AGGREGATOR_WEIGHTS, Aggregator
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
from grounding_app.engine.claim_work import ClaimWork, _context, _readable, _Verdict
from grounding_app.engine.claims import (
    asserted_statement,
    split_claims,
    strip_list_marker,
    unchecked_reason,
)
from grounding_app.engine.encoders import Encoder, EncodingCache, MemoEncoder, MiniLMEncoder
from grounding_app.engine.escalation import Escalated, Escalation, Ruling
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
from grounding_app.engine.response import respond
from grounding_app.engine.retrieval import Passage, PassageIndex
from grounding_app.engine.roles import proper_names
from grounding_app.engine.scales import Scale, logit
from grounding_app.engine.types import (
    FEATURE_JUDGE,
    FEATURE_JUDGE_LANGUAGES,
    LLM_JUDGE,
    VERIFIER,
    WORD_MATCHING,
    CheckRequest,
    CheckResponse,
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
    works: list[ClaimWork]  # the claim of each row
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
    escalation: Escalation, works: Sequence[ClaimWork], unread: Sequence[ClaimWork]
) -> None:
    """Gives its outcome to each claim whose score lies in the escalation's band, and to
    each `unread` one (word-matched) it takes whatever its score; a ruling replaces the
    claim's verdict (score 1 or 0, citing the passage named)."""
    order = [
        work
        for work in works
        if (
            escalation.takes_unread(work.language)
            if work in unread
            else escalation.wants(work.verdict.score)
        )
    ]
    items = [
        Escalated(
            claim=work.text,
            context=work.context.text if work.context_used else "",
            evidence=tuple(_readable(p.text) for p in work.verdict.windows),
            score=work.verdict.score,
            language=work.language,
        )
        for work in order
    ]
    for work, outcome in zip(order, escalation.judge(items), strict=True):
        work.outcome = outcome
        if outcome.ruling is not None:
            work.verdict = _ruled(work.verdict, outcome.ruling)
            work.checked_by = LLM_JUDGE


def _rescale(scale: Scale, works: Sequence[ClaimWork]) -> None:
    """Each claim's score on the scope's scale, where one is fitted for its judge; an
    escalation then reads, and rules on, the scope's scale."""
    for work in works:
        score = scale.apply(work.verdict.score, work.checked_by)
        if score is not None:
            work.verdict = replace(work.verdict, score=score)
            work.scale = scale.name


def _ruled(verdict: _Verdict, ruling: Ruling) -> _Verdict:
    if not ruling.supported:
        return _Verdict(0.0, [], verdict.windows)
    named = ruling.supporting_passage
    if named is not None and 0 <= named < len(verdict.windows):
        return _Verdict(1.0, [verdict.windows[named]], verdict.windows)
    return _Verdict(1.0, verdict.cited or list(verdict.windows[:1]), verdict.windows)


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
            from grounding_app.engine.verifying import VerifierJudge

            verifier = VerifierJudge(CrossEncoderJudge(directory or VERIFIER_DIR))
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
        works = self._read(request.answer)
        checked = [work for work in works if work.required]
        read = [work for work in checked if work.language in self.languages]
        matched = [work for work in checked if work.language not in self.languages]
        # Facts are cut into passages (and indexed, when many) only for checked claims.
        index = PassageIndex(request.facts if checked else ())
        self._judge_in_context(request, index, read)
        self._match_claims(index, matched)
        if request.scale is not None:
            _rescale(request.scale, checked)
        if escalation is not None:
            _escalate(escalation, read + matched, matched)
        return respond(request, works, self.explain)

    def _read(self, answer: str) -> list[ClaimWork]:
        """The answer's pieces, each with what the judge reads of it, its language, why it
        is not checked (None when it is) and, when it is, its context."""
        works = []
        for number, sentence in enumerate(split_claims(answer)):
            written = sentence.text if sentence.reading is None else sentence.reading
            text = _readable(strip_list_marker(written))
            # A confident reading of the sentence, else the answer's language.
            language = identify(text, answer, self.languages)
            # Markdown structure, else what its words are.
            reason = sentence.no_check_reason or unchecked_reason(text)
            if reason is None:
                # A checked question is read as the statement it asserts ("Did you know that X?").
                text = asserted_statement(text) or text
            works.append(ClaimWork(number, sentence, text, language, reason))
        for work in works:
            if work.required:
                work.context = _context(works, work.number)
        return works

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
        self, request: CheckRequest, index: PassageIndex, read: Sequence[ClaimWork]
    ) -> None:
        """Gives the claims `read` the judge's verdicts, each noting whether it came from a
        reading with the claim's context.

        Earlier sentences only resolve what a claim refers to; they never lower a claim
        that reads alone. A claim that names its subject is read alone. One that opens
        with a pronoun ("It was completed in 1737.") is read with its context, which names
        what the pronoun stands for where it can ("Titanic starred ..."); where it cannot
        and the claim falls short of `ENOUGH_SUPPORT`, it is read alone too, and that
        reading counts when it is higher and rests on a fact the context's sentences rest
        on (alone, "It was completed in 1743." matches any building's fact; after a
        sentence about the Eiffel Tower it is about the tower). One that may lean on its
        context ("The tower ...", a list item after "The cast includes:") is read alone
        and, short of `ENOUGH_SUPPORT`, with its context too, the higher reading counting.
        On fit_unseen's DiaSumFact answers (select half), reading pronouns only in context
        gave BA 0.665 / AUC 0.700 in the answer against 0.694 / 0.726 alone; this rule
        0.683 / 0.723 (`grounding_eval --whole-answers`, docs/verifier.md).
        """
        memo = MemoEncoder(self.encoder, self.fact_encodings)
        first = [(work, work.context.text if work.context.needed else "") for work in read]
        for (work, context), verdict in zip(
            first, self._judge_claims(request, index, first, memo), strict=True
        ):
            work.verdict, work.context_used, work.checked_by = (
                verdict,
                bool(context),
                self.judge_kind,
            )
        again = [
            (work, "" if work.context.needed else work.context.text)
            for work in read
            if work.context.text
            and work.verdict.score < ENOUGH_SUPPORT
            and not (work.context.needed and resolve_reference(work.text, work.context.text))
        ]
        facts = {work.number: {p.fact for p in work.verdict.cited} for work in read}
        for (work, context), verdict in zip(
            again, self._judge_claims(request, index, again, memo), strict=True
        ):
            if verdict.score <= work.verdict.score:
                continue
            if context:
                work.verdict, work.context_used = verdict, True
                continue
            antecedents = {f for j in work.context.claims for f in facts.get(j, ())}
            if not antecedents or antecedents & {p.fact for p in verdict.cited}:
                work.verdict, work.context_used = verdict, False

    def _match_claims(self, index: PassageIndex, matched: Sequence[ClaimWork]) -> None:
        """Claims in a language the judge does not read, judged by word matching.

        Each candidate passage is read alone, and a fact's candidates together (support
        spread over its sentences); the best reading is the score, and cites its passages.
        """
        for work in matched:
            work.checked_by = WORD_MATCHING
        if not matched or not index.passages:
            return
        pools = index.candidates(
            [work.text for work in matched], self.settings.candidates_per_query
        )
        penalties = self._penalties()
        # The word-matching judge weighs the numbers comparison as its own fitted feature:
        # the numbers check is not run beside it.
        checks = tuple(c for c in self.checks if c.kind != NUMBER)
        fact_passages: dict[int, list[Passage]] = {}
        for passage in sorted(index.passages, key=_position):
            fact_passages.setdefault(passage.fact, []).append(passage)
        for work, pool in zip(matched, pools, strict=True):
            passages = [index.passages[p] for p in pool]
            options = [[p] for p in passages]
            by_fact: dict[int, list[Passage]] = {}
            for passage in sorted(passages, key=_position):
                by_fact.setdefault(passage.fact, []).append(passage)
            options += [group for group in by_fact.values() if len(group) > 1]
            if not options:
                continue
            texts = [" ".join(_readable(p.text) for p in option) for option in options]
            language = work.language
            scores = self.word_match.score(work.text, texts, profile(language))
            # The checks read the whole of each fact an option comes from: a word swapped
            # in from the fact's next sentence is "elsewhere in the evidence".
            kinds: dict[tuple[int, ...], set[str]] = {}
            for k, option in enumerate(options):
                facts = tuple(sorted({p.fact for p in option}))
                if facts not in kinds:
                    reading = Reading(
                        work.text,
                        tuple(_readable(p.text) for f in facts for p in fact_passages[f]),
                        language=language,
                    )
                    kinds[facts] = fired(reading, language, checks)
                for kind in sorted(kinds[facts]):
                    scores[k] = _discount(scores[k], penalties[kind])
            best = max(range(len(options)), key=lambda k: scores[k])
            # An escalation reads every candidate: word matching's pick may miss the one.
            windows = tuple(sorted(passages, key=_position))
            work.verdict = _Verdict(scores[best], list(options[best]), windows)

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
        rows: Sequence[tuple[ClaimWork, str]],
        memo: MemoEncoder,
    ) -> list[_Verdict]:
        """The verdict on each claim of `rows`, read with the context given beside it;
        `memo` keeps the request's encodings for every reading of its claims."""
        if not rows:
            return []
        settings = self.settings
        if not index.passages:
            return [_Verdict(0.0, []) for _ in rows]
        works = [work for work, _ in rows]
        claims = [work.text for work in works]
        in_context = [f"{context} {work.text}".strip() for work, context in rows]
        plain = index.candidates(claims, settings.candidates_per_query)
        wide = index.candidates(in_context, settings.candidates_per_query)
        pools = [list(dict.fromkeys(a + b)) for a, b in zip(plain, wide, strict=True)]

        relevance = _relevance(index, pools, claims, in_context, memo)
        candidates = [
            _evidence_options(settings, index, claim, pools[row], relevance[row])
            for row, claim in enumerate(claims)
        ]
        queries = [ClaimInContext(work.text, context) for work, context in rows]
        # The names of the facts the evidence comes from, for the role check.
        read = sorted({f for options in candidates for option in options for f in option.facts})
        names = proper_names([request.facts[f].text for f in read])
        batch = _ClaimBatch(
            request,
            index,
            works,
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
        judged: list[list[tuple[float, _Candidate]]] = [[] for _ in rows]
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
        return [
            self._best_option(claim, options) for claim, options in zip(claims, judged, strict=True)
        ]

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
                batch.works[row].language,
            )
            pairs.append((ClaimInContext(aligned, query.context), evidence))
        scores = self.judge.score(pairs, batch.memo)
        others = self._other_judges(
            pairs, [batch.works[row].language for row, _ in todo], batch.memo
        )
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
        claim, (aligned, evidence) = batch.works[row].text, pair
        language = batch.works[row].language
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
                self.recorder(batch.works[row].number, features)
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
            reading.claim, reading.statements, reading.language
        )

    @staticmethod
    def _reading(query: ClaimInContext, names: frozenset[str]) -> ClaimInContext:
        """The claim as the judge reads it: with its pronoun resolved through `names` when
        the context is in lower case, else as it is (the judge resolves capitals)."""
        if not query.context or resolve_reference(query.claim, query.context) is not None:
            return query
        resolved = resolve_reference(query.claim, query.context, names)
        return query if resolved is None else ClaimInContext(resolved)
