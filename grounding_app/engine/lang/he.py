# ruff: noqa: RUF002
"""Hebrew: one-letter prefixes, stop words, negations, number words, hedges, and the
sentences that state nothing (greetings, sign-offs, pointers, instructions).

Hebrew writes the conjunction "ו", the article "ה", the prepositions "ב ל מ כ" and the
relative "ש" onto the next word, in combinations ("ובבית", "שמהעיר", "וכשהגיע"), so a
word matches another when either sheds up to three such letters and keeps at least three
of its own, or is left a two-letter negation or stop word ("ולא" is "לא"). Shedding can
over-reach ("מכתב" -> "כתב"); a form is only ever compared with another text's forms,
never shown.
"""

from __future__ import annotations

from functools import lru_cache

PREFIXES = frozenset("ובהלמשכ")
_MIN_STEM = 3
_MAX_PREFIX = 3

STOPWORDS = frozenset(
    """של את על עם זה זו זאת הוא היא הם הן אני אתה את אנחנו אתם יש גם כי אם או אבל רק
    כל מה מי היה הייתה היו יהיה תהיה אשר כמו עד אל מן בין לפני אחרי כדי הזה הזאת האלה
    אלה שלו שלה שלהם שלהן שלי שלך שלנו לו לה להם להן לי לך לנו אותו אותה אותם אותן
    אותי אותך אותנו מאוד יותר פחות כך כן עוד כבר אז איך למה כאן שם הנה אצל ידי""".split()
)

NEGATIONS = frozenset(
    """לא אין אינו אינה אינם אינן אינני איני אינך שום מעולם בלי ללא אף אל""".split()
)

NUMBER_WORDS = {
    "אחד": "1", "אחת": "1", "שניים": "2", "שתיים": "2", "שני": "2", "שתי": "2",
    "שלוש": "3", "שלושה": "3", "שלושת": "3", "ארבע": "4", "ארבעה": "4", "ארבעת": "4",
    "חמש": "5", "חמישה": "5", "חמשת": "5", "שש": "6", "שישה": "6", "ששת": "6",
    "שבע": "7", "שבעה": "7", "שבעת": "7", "שמונה": "8", "שמונת": "8", "תשע": "9",
    "תשעה": "9", "תשעת": "9", "עשר": "10", "עשרה": "10", "עשרת": "10", "עשרים": "20",
    "שלושים": "30", "ארבעים": "40", "חמישים": "50", "שישים": "60", "שבעים": "70",
    "שמונים": "80", "תשעים": "90", "מאה": "100", "מאתיים": "200", "אלף": "1000",
    "אלפיים": "2000", "מיליון": "1000000",
}  # fmt: skip

# Words that make a claim absolute ("all", "only", "always", "never", "most").
ABSOLUTES = frozenset("כל רק תמיד לעולם מעולם רוב הרבה כולם כולן שלם".split())

# Words that mark a statement as uncertain ("maybe", "probably", "allegedly", "may"):
# "ככל הנראה" is read by its second word.
HEDGES = frozenset(
    """אולי ייתכן יתכן ייתכנו כנראה הנראה לכאורה כביכול עשוי עשויה עשויים עשויות עלול
    עלולה עלולים עלולות יכול יכולה יכולים יכולות משוער סביר מסתבר""".split()
)

# Month names and their numbers, for dates written "4 ביולי 1950" (read as words, with
# their prefix shed) as well as "04/07/1950".
MONTHS = {
    name: number
    for number, names in enumerate(
        "ינואר פברואר מרץ|מרס אפריל מאי יוני יולי אוגוסט ספטמבר אוקטובר נובמבר דצמבר".split(),
        start=1,
    )
    for name in names.split("|")
}

# Sentences that state nothing, by why they are not checked (`lang/sentences.py`), read
# as English's are (`lang/en.py`): whole sentences, words joined by spaces and
# punctuation dropped; a heading or a question needs no words of its own.
GREETING_PATTERNS: tuple[str, ...] = (
    r"(?:שלום|היי|הי|אהלן|בוקר טוב|ערב טוב|צהריים טובים)(?: לך| לכם| רב| לכולם)?",
    r"(?:בשמחה|בטח|בוודאי|כמובן|בסדר|אין בעיה)",
    r"שאלה (?:מצוינת|טובה|מעולה|מעניינת)",
    r"הנה (?:מה שמצאתי|סיכום|תקציר|התשובה|תשובה|המידע|כמה פרטים)(?: (?:על|לגבי) [\w' ]{1,40})?",
    r"תודה(?: רבה)?(?: על השאלה)?",
)
SIGN_OFF_PATTERNS: tuple[str, ...] = (
    r"(?:אני )?מקווה ש(?:זה|זו|הדבר|המידע|התשובה) (?:עוזר|עזר|עוזרת|עזרה|יעזור|תעזור)(?: לך| לכם)?",
    r"(?:בהצלחה|להתראות|בברכה|יום (?:טוב|נעים|נפלא)|שיהיה (?:לך |לכם )?(?:בהצלחה|יום טוב))",
    r"אשמח לעזור(?: (?:בכל|בעוד) [\w ]{1,30})?",
    r"(?:אם )?יש (?:לך|לכם) (?:עוד )?שאלות(?: נוספות)?(?: אשמח לעזור)?",
    r"(?:ספרו|ספר|ספרי|תגידו|תגיד) לי אם [\w ]{1,40}",
)
# Reactions in a conversation, section words, refusals.
NO_CLAIM_PATTERNS: tuple[str, ...] = (
    r"(?:וואו )?(?:זה )?(?:מדהים|מעניין(?: מאוד)?|נשמע נהדר|נשמע טוב|נהדר|מצוין)",
    r"(?:וואו|איזה יופי|יופי|אני מסכים|אני מסכימה|גם אני|נכון|בדיוק|כל הכבוד|איזה כיף|אחלה"
    r"|סבבה|אין על זה)",
    r"(?:לסיכום|סיכום|מקורות|הערות)",
    r"(?:אני לא יודע|אני לא יודעת|אין לי מידע(?: על זה)?|לא מצאתי מידע(?: על זה)?)",
)
# A line before a colon that only says what comes next ("להלן הפרטים:", "לדוגמה:").
INTRODUCTION_PATTERNS: tuple[str, ...] = (
    r"(?:להלן|הנה)(?: [\w ]{1,40})?",
    r"(?:לדוגמה|לדוגמא|למשל|כך|כדלקמן)",
)
# Sentences addressed to the reader, read as English's are (`lang/en.py`, `_PLAIN`):
# "ראו את אתר העירייה.", "לפרטים נוספים, בקרו באתר.", "לחצו על שמירה."
_SOURCE = (
    r"(?<!\w)(?:<link>|[ובלה]{0,3}(?:אתר|אתרי|דף|דפי|עמוד|קישור|קישורים|מסמך|תיעוד|מדריך"
    r"|כתבה|מאמר|מקור|מקורות|ויקיפדיה|פורטל|בלוג|טבלה|רשימה)|למטה|להלן|למעלה|כאן)(?!\w)"
)
_FOR_MORE = r"[ול]*(?:פרטים|מידע|הסבר)(?: נוספים| נוסף| מלא| מלאים| מעודכן| עדכני)?"
_POINT = r"(?:ראו|ראה|ראי|עיינו|עיין|בקרו|בקר|בקרי|היכנסו|הכנסו|גשו|פנו|קראו|קרא|בדקו)"
POINTER_PATTERNS: tuple[str, ...] = (
    rf"(?:{_FOR_MORE},? )?{_POINT} .{{0,80}}?{_SOURCE}.{{0,60}}",
    rf"{_FOR_MORE}(?: (?:על|בנושא) [^,]{{1,40}})?,? {_POINT}(?: .{{0,80}})?",
    rf"{_FOR_MORE} (?:ב|באתר|בקישור|כאן|למטה).{{0,60}}",
)
_ACTION = (
    r"ל(?:לחוץ|הריץ|התקין|הוריד|הקליד|בדוק|פנות|שאול|חפש|קרוא|הירשם|התחבר|הזין|העתיק"
    r"|נסות|שלוף|משוך|היכנס|עיין)"
)
INSTRUCTION_PATTERNS: tuple[str, ...] = (
    # "כדי לקבל את הנתון העדכני, אפשר לפנות ל-API של הלשכה."
    rf"כדי [^,]{{1,80}}, (?:אפשר|ניתן|כדאי|מומלץ|יש|עליך|עליכם|תוכלו|תוכל|תוכלי|צריך)"
    rf" {_ACTION}(?!\w).*",
    r"(?:לחצו|לחץ|לחצי|הקישו|הקש|הקלידו|הקלד|הריצו|הרץ|התקינו|התקן|הורידו|הורד|הזינו|הזן"
    r"|העתיקו|הדביקו|היכנסו|הירשמו|התחברו|נסו|נסה|נסי|בחרו)(?!\w).*",
    r"(?:הקפידו|הקפד|הקפידי|זכרו|זכור|זכרי|אל תשכחו|אל תשכח|אל תשכחי) ל\w.*",
    r"(?:ודאו|וודאו|ודא|וודא) ש\w.*",
)


# Two-letter words that a prefix may be shed down to: "ולא" is "לא", "ושל" is "של".
_SHORT = frozenset(w for w in STOPWORDS | NEGATIONS if len(w) < _MIN_STEM)


@lru_cache(maxsize=65536)
def forms(word: str) -> frozenset[str]:
    """The word and what is left of it after shedding one, two or three prefix letters."""
    found = [word]
    rest = word
    for _ in range(_MAX_PREFIX):
        if len(rest) < 2 or rest[0] not in PREFIXES:
            break
        rest = rest[1:]
        if len(rest) >= _MIN_STEM or rest in _SHORT:
            found.append(rest)
    return frozenset(found)


# --- numbers -------------------------------------------------------------------------------

# Scale words after a figure ("2.1 מיליון", "970 אלף").
SCALES = {"אלף": 10**3, "אלפים": 10**3, "מיליון": 10**6, "מיליארד": 10**9}
# "כ-970 אלף" is "about 970 thousand": the prefix כ written onto the figure, with a
# hyphen, a maqaf or nothing between.
# The words are matched with the hyphen or maqaf after a prefix dropped ("יותר מ-500").
ABOUT = ("בערך", "כמעט", "קרוב ל", "כ")
AT_LEAST = ("יותר מ", "מעל ל", "מעל", "לפחות")
AT_MOST = ("פחות מ", "מתחת ל", "לכל היותר", "עד")
PERCENT_WORDS = ("%", "אחוזים", "אחוז")
CURRENCY_WORDS = {'ש"ח': "ILS", "שקלים": "ILS", "שקל": "ILS", "דולר": "USD", "אירו": "EUR"}
