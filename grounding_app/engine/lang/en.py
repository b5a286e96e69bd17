# ruff: noqa: RUF001
"""English: the word tables the lexical checks read, and the stemmer."""

from __future__ import annotations

from functools import lru_cache

import Stemmer

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself of off on once only or other
    our ours ourselves out over own same she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up very was
    we were what when where which while who whom why will with would you your yours
    yourself yourselves s t d ll m o re ve y said says say one
    """.split()
)

NEGATIONS = frozenset(
    """not no never none nobody nothing neither nor nowhere cannot without n't isn't aren't
    wasn't weren't don't doesn't didn't won't wouldn't can't couldn't shouldn't hasn't
    haven't hadn't""".split()
)

# Spelled-out numbers the word-matching judge reads as digits (the verifier's own
# reader, `normalise`, also reads compounds, scales and fractions).
NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen"
        " fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100", "thousand": "1000"}

# Words that make a claim absolute: a claim that adds one the evidence lacks ("all",
# "only", "never") usually says more than the evidence does.
ABSOLUTES = frozenset("all every only always never none most many entire whole".split())

_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return _stemmer.stemWord(word.lower())


# The checks' own tables follow, one section per module that reads them. Regexes are
# kept here as pattern text; the profile (`lang/__init__.py:ENGLISH`) compiles them, with
# their flags, and the checks read them there.

# --- claims: abbreviations, lower-cased with their final period ------------------------

# Titles and Latin abbreviations: never a sentence end.
NEVER_SPLIT: frozenset[str] = frozenset(
    {
        # titles and honorifics, always followed by a name
        "dr.", "mr.", "mrs.", "ms.", "messrs.", "mme.", "mlle.", "prof.", "rev.", "fr.",
        "hon.", "pres.", "gov.", "gen.", "sen.", "rep.", "lt.", "col.", "capt.", "cpt.",
        "sgt.", "maj.", "cmdr.", "adm.", "supt.", "insp.", "mt.",
        # Latin and connective abbreviations, always followed by more of the sentence
        "e.g.", "i.e.", "cf.", "vs.", "viz.", "resp.", "incl.", "esp.",
    }
)  # fmt: skip

# Abbreviations a number follows ("Fig. 3", "Jan. 5"): no sentence end before a digit.
NUMERIC_ABBREVIATIONS: frozenset[str] = frozenset(
    {
        "no.", "nos.", "nr.", "fig.", "figs.", "pp.", "vol.", "vols.", "ch.",
        "chap.", "sec.", "art.", "eq.", "ref.", "op.", "approx.", "ca.", "est.",
        "tel.", "ext.", "ed.", "jan.", "feb.", "mar.", "apr.", "jun.", "jul.", "aug.",
        "sep.", "sept.", "oct.", "nov.", "dec.",
    }
)  # fmt: skip

# Abbreviations that may end a sentence: only before a word of SENTENCE_STARTERS.
TERMINAL_ABBREVIATIONS: frozenset[str] = frozenset(
    {
        "etc.", "al.", "inc.", "ltd.", "co.", "corp.", "llc.", "plc.", "bros.", "jr.",
        "sr.", "dept.", "univ.", "assn.", "u.s.", "u.k.", "u.n.", "e.u.", "u.s.a.",
        "ph.d.", "m.d.", "b.a.", "m.a.", "b.sc.", "m.sc.", "d.c.", "a.m.", "p.m.",
        # street / feet also end sentences; "St. Louis" and "Ft. Worth" still stay whole
        "st.", "ft.",
    }
)  # fmt: skip

# Abbreviations a lower-case word often follows; never a sentence end before one.
LOWER_CASE_CONTINUES: frozenset[str] = frozenset(
    {
        "min.", "max.", "avg.", "misc.", "govt.", "trans.", "orig.", "sp.",
        "spp.", "var.", "lit.", "abbr.", "ibid.", "cont.", "pl.", "sing.", "masc.",
        "fem.", "ave.", "blvd.", "rd.", "hwy.", "mtn.", "pop.", "yr.", "yrs.", "hr.",
        "hrs.", "mins.", "secs.", "oz.", "lb.", "lbs.", "kg.", "km.", "cm.", "mm.", "sq.",
        "cu.", "dia.", "temp.", "mfg.", "intl.", "natl.",
    }
)  # fmt: skip

# Common first words of a sentence, as written (capitalised).
SENTENCE_STARTERS: frozenset[str] = frozenset(
    {
        "A", "An", "The", "It", "Its", "This", "That", "These", "Those", "He", "She",
        "They", "We", "I", "You", "His", "Her", "Their", "Our", "My", "There", "Here",
        "In", "On", "At", "After", "Before", "During", "Since", "When", "While", "However",
        "But", "And", "So", "Then", "Also", "As", "By", "For", "From", "Today", "Later",
        "Many", "Most", "Some", "Both", "Each", "If", "Although", "Because", "Yet", "One",
        "Another", "Other", "Now", "Meanwhile", "Thus", "Therefore",
    }
)  # fmt: skip

# --- claims: sentences that need no check ----------------------------------------------

_HERE = (
    r"here(?: ?'s| is| are)(?: (?:what i (?:found|know|could find|have found)"
    r"|(?:a|an|the|some|my) (?:(?:short|brief|quick|concise|detailed|full) )?"
    r"(?:summary|answer|overview|information|info|details|results?|list|breakdown"
    r"|explanation|rundown|response|facts|key points)"
    r"))(?: (?:of|about|on|for|regarding|to)(?: [\w']+){1,4})?"
)
_LEAD_IN = (
    r"(?:(?:based on|according to|from|using|after reviewing|looking at) "
    r"(?:the|these|those|my|your|available|provided) (?:\w+ ){0,3}"
    r"(?:sources?|facts?|information|documents?|search results|results|context|data)"
    r"|ok(?:ay)?|sure|so|well|alright|certainly|of course|absolutely|great)"
)
_REFUSAL = (
    r"(?:i(?: ?'m| am) (?:not (?:sure|certain)|unsure)(?: (?:about|of) (?:that|this))?"
    r"|i (?:don ?'t|do not) (?:know|have (?:that|this|enough) information)"
    r"(?: (?:that|the answer|for sure))?"
    r"|i (?:cannot|can ?'t|can not|am unable to|'m unable to|am not able to|was unable to"
    r"|could not|couldn ?'t) (?:answer|help with|find|determine|say|tell|provide|confirm)"
    r"(?: (?:that|this|it|the answer|an answer|any information|that information))?"
    r"(?: (?:question|for sure|with certainty|right now))?"
    r"|no (?:information|answer|data|results?) (?:is |was )?(?:available|found)"
    r"|i have no (?:information|idea))"
)
# Whole sentences, case-folded and stripped of punctuation, that say nothing to check,
# by why (`types.NO_CHECK_REASONS`). Greetings and openers, thanks among them; the last
# rows are those of other languages without a profile, read in every answer.
GREETING_PATTERNS: tuple[str, ...] = (
    r"(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening|day)|dear \w+)"
    r"(?: (?:there|everyone|all|friend|folks))?",
    r"(?:thanks?|thank you|many thanks|thx|you ?'re welcome|no problem|my pleasure)"
    r"(?: (?:so|very) much)?(?: (?:for (?:asking|your question|reaching out|the question"
    r"|your patience|waiting|your interest)))?",
    rf"(?:{_LEAD_IN} )?{_HERE}",
    rf"{_LEAD_IN}",
    r"(?:great|good|excellent|interesting|that ?'s a (?:great|good) ) ?question",
    r"here (?:you go|it is|goes)",
    r"(?:sure|certainly|of course|absolutely|okay|ok|got it|understood|alright"
    r"|sure thing|no worries|indeed|right|well|noted)",
    r"i (?:found|have found|discovered|gathered|was able to find) (?:the following|some|this)"
    r"(?: (?:information|details|facts|results|sources))?"
    r"(?: (?:about|on|regarding|for)(?: [\w']+){1,4})?",
    r"let me (?:explain|summarize|check|look (?:that |it )?up|help(?: you)?"
    r"|break (?:it|this) down)",
    r"(?:hola|bonjour|hallo|ciao|salut|olá|guten tag|buenos días|bonsoir|merci(?: beaucoup)?"
    r"|gracias|danke(?: schön)?|grazie|obrigad[oa]|de rien|de nada|bitte|prego"
    r"|voici ce que j ?'ai trouvé|aquí está lo que encontré|hier ist,? was ich gefunden habe)",
    r"(?:مرحبا|شكرا(?: جزيلا)?|こんにちは|ありがとう(?:ございます)?"
    r"|你好|您好|谢谢|谢谢你|안녕하세요|감사합니다|привет|здравствуйте|спасибо)",
)
SIGN_OFF_PATTERNS: tuple[str, ...] = (
    r"(?:i )?hope (?:this|that|it) (?:helps|answers your question|clarifies things"
    r"|was helpful)(?: you)?",
    r"let me know if (?:you (?:have|need)|there (?:is|are)) (?:anything(?: else)?"
    r"|(?:any )?(?:(?:other|more|further|additional) )?(?:questions?|help|information"
    r"|details))",
    r"feel free to (?:ask|reach out)(?: (?:if you have )?(?:any )?(?:other |more |further )?"
    r"questions?)?",
    r"(?:best|kind|warm) regards|cheers|goodbye|bye|take care"
    r"|have a (?:nice|great|good|wonderful) (?:day|evening|week)",
    r"(?:is there )?anything else(?: i can (?:help (?:you )?with|do for you))?",
    r"(?:(?:i ?'m|i am) )?(?:happy|glad) (?:to|i could) help(?: (?:with that|you))?",
)
# Reactions, section words, bare hedges and refusals: no content at all.
NO_CLAIM_PATTERNS: tuple[str, ...] = (
    # reactions to the other person's words in a conversation ("That's awesome!");
    # a liking of the speaker's own ("I love steak!") is a claim, which dialogue
    # benchmarks label unsupported when the knowledge does not state it
    r"(?:wow |oh |oh wow |yes |yeah )?(?:that ?' ?s|that is|that sounds|sounds|how)"
    r" (?:so |really |very |pretty )?(?:awesome|great|cool|nice|interesting|amazing"
    r"|wonderful|fun|good|neat|fascinating|funny|sad|crazy|impressive)",
    r"(?:i (?:totally |completely )?agree|me too|same here|i didn ?' ?t know that"
    r"|i did not know that|i had no idea|wow|cool|nice|awesome|interesting)",
    r"(?:in summary|to summarize|in conclusion|to sum up|in short|summary|answer|sources"
    r"|references|notes?|details|overview|background)",
    rf"(?:(?:sorry|i ?'m sorry|i am sorry|unfortunately|i apologize) ?(?:but )?)?{_REFUSAL}",
    r"(?:sorry|i ?'m sorry|i am sorry|i apologize)",
    r"(?:je ne sais pas|no lo sé|no sé|ich weiß (?:es )?nicht)",
)

# A line that ends in a colon and only says what comes next is no claim ("To list them in
# Python:", "Run this command:", "For example:"); the code or list it introduces carries
# what there is to check. Read only before a colon: "Use Python 3.12." is a claim.
INTRODUCTION_PATTERNS: tuple[str, ...] = (
    r"(?:to|you can|we can|one can) (?:[\w']+ ){1,6}(?:in|with|using|via|from|on|through)"
    r" (?:[\w']+ ){0,2}(?:python|javascript|js|typescript|ts|bash|shell|terminal|sql|java|go"
    r"|rust|c|ruby|php|r|curl|powershell|command line|cli|code|api|sdk|console|pip|npm|yarn"
    r"|apt|brew|docker|git|conda|cargo|make)",
    r"(?:run|use|try|type|add|paste|install|execute|call|copy|enter|save|create|open)"
    r" (?:this|the following|these|it|that)(?: [\w']+){0,3}",
    r"(?:for (?:example|instance)|e g|example|as follows|like this|like so|for reference)",
    r"here ?(?:'s| is| are) (?:how|an example|some examples|the (?:code|command|commands"
    r"|snippet|query|output|result|steps|script|example))(?: (?:to|for|of|in)(?: [\w']+){1,4})?",
    r"(?:the )?(?:code|command|commands|snippet|query|output|result|steps|script|example)"
    r"(?: (?:is|are|looks like|would be))?",
)

# Sentences addressed to the reader, read whole (`lang/sentences.py:unchecked_reason`):
# case-folded, emphasis marks and the final punctuation dropped, each web address read
# as "<link>". Only a sentence without digits and without a clause that explains or
# describes (`_PLAIN`) is read at all: "See the site, which lists 130 museums." and "You
# can call the museum on 01 40 20 50 50." state something. Deliberately narrow: "You can
# see the Eiffel Tower from the Trocadéro." and "Visit the site of the Bastille." are
# claims, "See's Candies was founded in 1921." too.
_PLAIN = r"(?!.*\b(?:because|since|which|whose|who|where)\b)"
# Where to look: a page, a document, a web address, or "below".
_SOURCE = (
    r"(?<!\w)(?:<link>|(?:web ?)?sites?(?! of\b)|websites?|web ?pages?|pages?|homepage|links?"
    r"|urls?|documentation|docs|articles?|sources?|references?|guides?|faqs?|sections?"
    r"|chapters?|resources|help (?:center|centre)|portal|blog|posts?|reports?|manual|wiki"
    r"|wikipedia|papers?|press releases?|announcements?|release notes|tables?|lists?|below"
    r"|above|here)(?!\w)"
)
_FOR_MORE = (
    r"for (?:more|details|further|additional|full|complete|the latest|up-to-date|current"
    r"|more detailed)(?: (?:info|information|details|reading|figures|data|hours|news"
    r"|updates))?(?: (?:on|about|regarding) [^,]{1,60})?"
)
_POINT = (
    r"(?:see(?: also)?|visit|check out|check|refer to|consult|go to|head (?:over )?to|read"
    r"|browse|look at|take a look at|have a look at)"
)
_POINT_TO_READER = (
    r"(?:you can|you could|you may want to|you might want to|you should|you'll want to"
    r"|be sure to|make sure to|please) (?:visit|check out|check|refer to|consult|go to"
    r"|read|browse|look at)"
)
POINTER_PATTERNS: tuple[str, ...] = (
    rf"{_PLAIN}(?:{_FOR_MORE},? )?(?:please )?{_POINT} .{{0,80}}?{_SOURCE}.{{0,60}}",
    rf"{_PLAIN}(?:{_FOR_MORE},? )?{_POINT_TO_READER} .{{0,80}}?{_SOURCE}.{{0,60}}",
    rf"{_PLAIN}{_FOR_MORE},? (?:(?:please )?{_POINT}|{_POINT_TO_READER}) .{{1,80}}",
    rf"{_PLAIN}(?:more|more (?:info|information|details)|details|further (?:details"
    rf"|information|reading)|full (?:details|list)|learn more|read more|find out more"
    rf"|source|sources)(?: (?:at|on|in|from|via))? .{{0,60}}?{_SOURCE}.{{0,40}}",
    rf"{_PLAIN}(?:you can|you could|you'll|you will|you may) (?:find|get|read|see|learn)"
    rf" (?:more|further|additional|detailed|full|complete|the latest|up-to-date|current"
    rf"|all the)\b.{{0,60}}?{_SOURCE}.{{0,40}}",
)
# What the reader may do with a tool or a source, not what the world allows: "You can
# book tickets online." and "To reach Paris from London, take the Eurostar." are claims.
_ACTION = (
    r"(?:click|tap|press|select|type|enter|paste|copy|run|execute|call|query|fetch|pull"
    r"|install|download|check|double-check|verify|confirm|look (?:it |this |that |them )?up"
    r"|search|consult|refer to|contact)"
)
_PURPOSE = r"(?:to|in order to|if you (?:want|need|would like|wish|prefer)(?: to)?) [^,]{1,80}, "
INSTRUCTION_PATTERNS: tuple[str, ...] = (
    # "To pull the latest figure yourself, you could call the statistics API."
    rf"{_PLAIN}{_PURPOSE}(?:you|one) (?:can|could|should|may|might|will|'ll|would|need to"
    rf"|may want to|might want to|will want to|'ll want to)(?: also| simply| just| first)?"
    rf" {_ACTION}\b.*",
    rf"{_PLAIN}{_PURPOSE}(?:please )?{_ACTION}\b.*",
    rf"{_PLAIN}you (?:may|might|'ll|will) want to {_ACTION}\b.*",
    rf"{_PLAIN}you (?:should|must|need to|have to|'ll need to|will need to)(?: always| first"
    rf"| also)? (?:check|double-check|verify|confirm|consult|look up|contact)\b.*",
    rf"{_PLAIN}(?:you|one) (?:can|could) (?:also |simply |just )?(?:call|query|fetch from"
    rf"|use) (?:the |this |that |our |their |an? )?(?:[\w-]+ ){{0,3}}(?:api|endpoint|sdk"
    rf"|cli)\b.*",
    rf"{_PLAIN}(?:please )?(?:make sure|be sure|remember|don't forget|do not forget)"
    rf" (?:to|you)\b.*",
    rf"{_PLAIN}(?:please )?(?:click|tap|double-click|right-click)\b.*",
    rf"{_PLAIN}(?:please )?(?:select|choose|enter|open|save|copy|paste|type|press|install"
    rf"|download|upload|register|subscribe|sign up|sign in|log in) (?:the|a|an|this|that"
    rf"|these|your|it|them|on|in|to|for|from|with)\b.*",
    rf"{_PLAIN}(?:please )?(?:run|execute) (?:this|these|that|it|them|the following|the"
    rf" (?:[\w-]+ ){{0,2}}(?:command|script|code|query|program|tests?|installer|setup"
    rf"|migrations?|app|tool|snippet|cell|function)s?)\b.*",
    rf"{_PLAIN}(?:please )?try (?:to|again|this|these|that|it|the following|running|using"
    rf"|searching|restarting|reloading|refreshing|clearing|asking|contacting|checking"
    rf"|reinstalling|updating|calling)\b.*",
    rf"{_PLAIN}(?:please )?(?:check|double-check|verify|confirm) (?:the|your|that|whether|if"
    rf"|with|for|again)\b.*",
    rf"{_PLAIN}(?:please )?(?:call|query|fetch|pull) (?:the |this |that |our |their |an? )?"
    rf"(?:[\w-]+ ){{0,3}}(?:api|endpoint|function|method|service)\b.*",
)

# Words that carry no checkable content on their own; a sentence made only of these
# ("Yes, it is.", "That is all.") is not checked. Not STOPWORDS: it adds replies ("yes",
# "okay", "thanks") and leaves out content a claim may rest on ("said", "one", "between").
NON_CONTENT_WORDS: frozenset[str] = frozenset(
    """
    a an the this that these those it its it's i i'm me my we our you your he she him her
    they them their is are was were be been being am do does did done have has had will
    would shall should can could may might must not no yes yeah yep nope so very too also
    just really quite of in on at to for with by from as and or but if then than there
    here what which who whom whose when where why how all any some more most much many
    ok okay sure well oh ah um hmm please thanks thank hi hello hey bye again still that's
    there's here's what's let's else
""".split()
)

# --- claims: questions that assert a statement -----------------------------------------

# "Did you know (that) X?": know, realise and hear are factive; the clause is the claim.
FACTIVE_QUESTION = (
    r"(?:(?:do|did|don't|didn't)\s+you\s+(?:know|realise|realize|hear)"
    r"|have\s+you\s+heard|(?:are|were)\s+you\s+aware)"
    r"(?:\s+that\b|(?=\s))\s*(?P<clause>.+)"
)
# First words of a question or an object, not of a statement ("do you know what ...").
NOT_A_CLAUSE = frozenset(
    "what which who whom whose when where why how whether if any anything anyone"
    " anybody some something someone somebody about of much many".split()
)
# A finite verb, which makes the words after "did you know" a clause of their own.
FINITE_VERB = (
    r"\b(?:is|are|was|were|has|have|had|does|did|can|could|will|would|shall|should|may"
    r"|might|must|'s|'re|'ve|'d|isn't|aren't|wasn't|weren't|hasn't|haven't|hadn't"
    r"|doesn't|didn't|can't|won't)\b"
)
# A tagged clause opening with one of these asks too ("Is it true, do you think?").
NOT_A_TAGGED_CLAUSE = NOT_A_CLAUSE | frozenset(
    "is are was were do does did have has can could will would should".split()
)
# A statement with a question tagged on: "X, do you like them?", "X, right?".
QUESTION_TAG = (
    r"(?P<clause>.+?)\s*,\s*(?:(?:do|did|don't|didn't|have|haven't|are|aren't|were|would|"
    r"will|can|could|isn't|wasn't|won't|doesn't)\s+(?:you|it|they|he|she|we)\b[^,]*"
    r"|what\s+about\s+you|how\s+about\s+you|right|no|eh|huh|you\s+know)\s*$"
)

# --- normalise: numbers and dates in words ---------------------------------------------

# Spelled-out numbers the verifier's reader reads as values: compounds ("twenty-one"),
# scales ("1.5 million") and ordinals; NUMBER_WORDS above is the word-matching judge's.
UNITS = {
    word: value
    for value, word in enumerate(
        """zero one two three four five six seven eight nine ten eleven twelve thirteen
        fourteen fifteen sixteen seventeen eighteen nineteen""".split()
    )
}
TENS = {
    word: 10 * value
    for value, word in enumerate(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2
    )
}
SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
# After digits ("2 dozen", "1.5 million"); in words "hundred" and "dozen" are read apart.
DIGIT_SCALES = {"dozen": 12, "hundred": 100, **SCALES}
_ORDINAL_TEXT = """fourth:4 fifth:5 sixth:6 seventh:7 eighth:8 ninth:9 tenth:10
    eleventh:11 twelfth:12 thirteenth:13 fourteenth:14 fifteenth:15 sixteenth:16
    seventeenth:17 eighteenth:18 nineteenth:19 twentieth:20 thirtieth:30 fortieth:40
    fiftieth:50 sixtieth:60 seventieth:70 eightieth:80 ninetieth:90 hundredth:100
    thousandth:1000 millionth:1000000 billionth:1000000000"""
ORDINALS = {w: int(v) for w, v in (item.split(":") for item in _ORDINAL_TEXT.split())}
# "first", "second" and "third" alone are too often not numbers ("at first", "a second",
# "a third of"); they count only after a tens word ("twenty-first").
LOW_ORDINALS = {"first": 1, "second": 2, "third": 3}
SPELLED_NUMBERS = frozenset([*UNITS, *TENS, *SCALES, *ORDINALS, "hundred", "dozen"])
# Nouns that state how many of something there are: "The trio will next appear" states
# three. Read in the evidence only: a claim's "the trio" may name three people the
# evidence lists by name, which no reader here counts. "Both" and "a couple of" are left
# out: "both" points back at things already named, "a couple of" is loose.
COLLECTIVE_COUNTS = {
    "pair": 2,
    "duo": 2,
    "twins": 2,
    "trio": 3,
    "triplets": 3,
    "quartet": 4,
    "quintet": 5,
    "sextet": 6,
}
# What makes a number word before it a fraction ("two-thirds", "three quarters", "one
# fifth"), and of how many parts.
DENOMINATORS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    **{w: v for o, v in ORDINALS.items() if v <= 10 for w in (o, f"{o}s")},
}

# Month names and their abbreviations, by the month's number.
MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
# Full month names as a date is written ("December 1997").
MONTH_NAMES = ("January February March April May June July August September October"
               " November December").split()  # fmt: skip
# How dates are written in words, around a month name (`DATE_MONTH`, filled in by the
# profile): "4 July 1950", "the 4th of July, 1950", "July 4, 1950", "July 1950".
DATE_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
DATES_IN_WORDS = (
    r"\b{day}\s+(?:of\s+)?{month},?\s+{year}\b",
    r"\b{month}\s+{day},?\s+{year}\b",
    r"\b{month},?\s+{year}\b",
)
# A decade, read as the years it holds: "the 1990s", "1990's".
DECADE = r"\b(?:the\s+)?(?P<decade>[12]\d{2}0)['\u2019]?s\b"

# --- lexical: names, references and pronouns -------------------------------------------

# The word that sequence-to-sequence summarisers write for one outside their vocabulary
# ("former striker UNK UNK denied ..."): an unreadable word, not a name the facts lack.
PLACEHOLDERS = frozenset({"unk"})

# Capitalised words that start sentences or fill titles without naming anything.
NOT_NAMES = (
    STOPWORDS
    | PLACEHOLDERS
    | frozenset("however yes no according although though many several most some its it's".split())
)

# Openings that stand for something named before: "It was released in 1997." cannot be
# read alone, so it is read with the sentences before it, and only so.
REFERRING = frozenset(
    "it its he him his she her they them their this that these those such former latter".split()
)
# Openings that may lean on the sentence before or name their subject themselves: "The
# film won 11 awards." is about the film just named, "There are 1,665 steps." reads alone.
# Such a sentence is read alone and with the sentences before it, the better reading
# counts. "The" before a capital names its subject ("The Arc de Triomphe ..."): alone.
DEFINITE = frozenset("the both there".split())

# Small words inside a name that its abbreviation leaves out ("National Aeronautics and
# Space Administration": NASA).
NAME_LINKS = frozenset("of and the for de".split())

# A country's adjective and its name(s), in lower case: "the French president" is the
# president of France.
DEMONYMS: dict[str, tuple[str, ...]] = {
    "american": ("united states", "america", "usa", "us"),
    "british": ("britain", "united kingdom", "uk"),
    "english": ("england",), "scottish": ("scotland",), "welsh": ("wales",),
    "irish": ("ireland",), "french": ("france",), "german": ("germany",),
    "italian": ("italy",), "spanish": ("spain",), "portuguese": ("portugal",),
    "dutch": ("netherlands", "holland"), "belgian": ("belgium",),
    "swiss": ("switzerland",), "austrian": ("austria",), "swedish": ("sweden",),
    "norwegian": ("norway",), "danish": ("denmark",), "finnish": ("finland",),
    "polish": ("poland",), "russian": ("russia",), "ukrainian": ("ukraine",),
    "greek": ("greece",), "turkish": ("turkey",), "chinese": ("china",),
    "japanese": ("japan",), "korean": ("korea",), "indian": ("india",),
    "pakistani": ("pakistan",), "australian": ("australia",), "canadian": ("canada",),
    "mexican": ("mexico",), "brazilian": ("brazil",), "argentine": ("argentina",),
    "argentinian": ("argentina",), "egyptian": ("egypt",), "israeli": ("israel",),
    "iranian": ("iran",), "iraqi": ("iraq",), "saudi": ("saudi arabia",),
    "nigerian": ("nigeria",), "kenyan": ("kenya",), "european": ("europe",),
    "african": ("africa",), "asian": ("asia",),
}  # fmt: skip

# Country names that are also common words ("us"): they count only written in capitals.
CAPITALS_ONLY = frozenset({"us", "usa", "uk"})

# Leading pronouns a name may replace, and the ending the name then takes ("Its" after
# "Titanic ..." is "Titanic's").
PRONOUN_ENDINGS = {
    "it": "",
    "he": "",
    "she": "",
    "they": "",
    "its": "'s",
    "his": "'s",
    "her": "'s",
    "their": "'s",
}

# Pronouns hold the place of a name ("Later he served as ..."), so they are kept.
PERSONAL_PRONOUNS = frozenset("i we you he she it they me us him her them".split())

# --- roles: who did what ---------------------------------------------------------------

# Where a claim's clauses part: "A proposed X, which B criticised", "A tested X, and B
# funded it" (read case-insensitively).
CLAUSE_BREAK = (
    r",\s*(?:which|who|whom|whose|while|whereas|and|but)\s+|;\s*|\s+(?:but|whereas|while)\s+"
)
# Pronouns that may stand for a person named in the claim. Not PERSONAL_PRONOUNS, which
# hold a name's place in word order ("I", "it" too): these must be able to mean someone else.
THIRD_PERSON_PRONOUNS = frozenset(
    "he she they him her them his hers their theirs himself herself".split()
)
# Capitalised words that name no one who could do something.
NOT_AGENTS = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february
    march april may june july august september october november december mr mrs ms dr""".split()
)

# --- hedges: a hedge the claim drops ---------------------------------------------------

# Words that mark a statement as uncertain. Lower case only: "May" is a month.
HEDGES = frozenset(
    """may might could possibly probably likely unlikely perhaps maybe reportedly allegedly
    apparently suggest suggests suggested suspected believed presumably unconfirmed""".split()
)

# --- unsupported: words a reviewer is shown as missing ---------------------------------

# Words never marked as missing, being no pointer to what is wrong. Not STOPWORDS: it adds
# modals ("may"), negations and French, Spanish and German articles, and marks "said", "one".
UNMARKED_WORDS = frozenset(
    """
    a an the and or but nor so yet of in on at to for from by with without about as into
    onto over under than then that this these those there here it its it's is are was
    were be been being am do does did done has have had having will would shall should
    can could may might must not no yes very also just only more most much many some any
    all each every both either neither other such own same too which who whom whose what
    when where why how i you he she we they me him her us them my your his our their
    mine yours ours theirs if while because though although after before during until
    up down out off again further once s t de la le les des du el los las et und der die
    das
    """.split()
)

# --- numbers: what a figure is written with ----------------------------------------------

# Scales written onto a figure ("2.1M", "$50m", "3bn", "10k"): "m" counts only after a
# currency sign or in capitals, since "5m" is also five metres.
SHORT_SCALES = {"k": 10**3, "K": 10**3, "M": 10**6, "bn": 10**9, "B": 10**9}
CURRENCY_SCALES = {"m": 10**6, "b": 10**9}
# Words before a number that set how the writer meant it: both ways within its rounding,
# as a lower bound, or as an upper one. Longest first where one ends another.
ABOUT = (
    "approximately", "an estimated", "estimated", "roughly", "around", "about", "nearly",
    "almost", "close to", "some", "circa", "approx.", "approx", "c.", "~",
)  # fmt: skip
AT_LEAST = (
    "more than", "at least", "upwards of", "in excess of", "over", "above", "exceeding",
    "no fewer than", "no less than", "greater than",
)  # fmt: skip
AT_MOST = (
    "fewer than", "less than", "no more than", "not more than", "up to", "at most",
    "under", "below", "as many as",
)  # fmt: skip
PERCENT_WORDS = ("%", "percent", "per cent", "percentage points", "percentage point", "pct")
# Currency signs before a figure and words after it, by currency.
CURRENCY_SIGNS = {"US$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "₪": "ILS", "¥": "JPY"}
CURRENCY_WORDS = {
    "dollars": "USD", "dollar": "USD", "usd": "USD", "euros": "EUR", "euro": "EUR",
    "eur": "EUR", "pounds": "GBP", "pound": "GBP", "gbp": "GBP", "shekels": "ILS",
    "shekel": "ILS", "nis": "ILS", "ils": "ILS", "yen": "JPY",
}  # fmt: skip
# Units of measure a figure may carry; two different ones make two numbers incomparable.
MEASURES = {
    "km": "km", "kilometres": "km", "kilometers": "km", "kilometre": "km", "kilometer": "km",
    "miles": "mi", "mile": "mi", "mi": "mi", "metres": "m", "meters": "m", "metre": "m",
    "meter": "m", "feet": "ft", "foot": "ft", "ft": "ft", "kg": "kg", "kilograms": "kg",
    "kilogram": "kg", "lb": "lb", "lbs": "lb", "tonnes": "t",
    "tons": "t", "hectares": "ha", "acres": "acre", "years": "year", "year": "year",
    "months": "month", "month": "month", "days": "day", "day": "day", "hours": "hour",
    "hour": "hour", "minutes": "minute", "minute": "minute", "seconds": "second",
    "°c": "C", "°f": "F",
}  # fmt: skip
# Range words between two figures: "10 to 12", "between 10 and 12".
RANGE_JOINERS = ("–", "—", "-", "to", "and")
RANGE_OPENERS = {"and": "between"}

# --- evidence: attributes that locate a fact ---------------------------------------------

# A key whose last word is one of these (document ids, chunk numbers, "sentences: 47-51"
# locators) says nothing a claim could rest on (`evidence.is_bookkeeping`).
BOOKKEEPING_KEY = (
    r"(^|[_-])(id|ids|uuid|guid|chunk|n_chunks|index|offset|hash"
    r"|sentences?|lines?|pages?|paragraphs?|para)$"
)

# --- records: how a claim says a record's "yes" ----------------------------------------

# A record's yes/no statement as the facts' reader writes it ("outdoor seating: no.").
RECORD_FLAG = r"(?P<key>[^:]+): (?:(?P<yes>yes)|no)\."

# A record's yes/no key ("outdoor seating: yes") is claimed in words that add nothing but
# that the thing is there to have: "customers can make reservations", "outdoor seating is
# available", "they offer free WiFi". A claim whose other words are all such words states
# no more than the record's yes or no (`checks/record_flag.py`).
OFFERING_WORDS = frozenset(
    """available availability offer offers offered offering provide provides provided
    accept accepts accepted take takes taken make makes allow allows allowed permit
    permits permitted welcome welcomes option options possible customer customers guest
    guests diner diners visitor visitors patron patrons people""".split()
)

# --- votes: "unanimously" against a split vote ----------------------------------------

# A claim that every member agreed (`checks/vote.py`): single words, and two-word phrases.
UNANIMITY = frozenset("unanimous unanimously unopposed".split())
UNANIMITY_PHRASES = frozenset(
    ("all members", "every member", "without dissent", "without opposition", "no dissent")
)
# Words of a sentence that reports a vote, and those that give its dissent.
VOTE_WORDS = frozenset("vote votes voted voting ballot approved passed rejected adopted".split())
DISSENT_WORDS = frozenset("against opposed dissented dissenting abstained".split())
# A tally: two counts of at most three digits ("7-2", "5 to 4"; no year range "2019-2020").
TALLY = r"(?<!\d)(?<!\d[.,])(\d{1,3})\s*(?:-|\u2013|\u2014|to)\s*(\d{1,3})(?!\d|[.,]\d)"

# --- roles: words that say which way an action goes ----------------------------------

# Stopwords the role check keeps as part of a claim's action: "voted against the plan"
# is not what "praised the vote" states, though both are about the vote.
ACTION_PARTICLES = frozenset({"against"})
# The words that mark the doer of a passive ("directed by James Cameron").
AGENT_MARKERS = frozenset({"by"})
