"""One line of everyday text in each script the bundled fonts cover, for the checks that
PDFs draw and read back every script: joined letters, marks above and below, vowel signs
drawn before their consonant, split vowels, stacked consonants, digits inside
right-to-left text, and emoji."""

from __future__ import annotations

SCRIPT_LINES = {
    "latin": "Grüße aus Köln, “quoted” office 2026",
    "latin-marks": "Cafe\u0301 n\u0303 x\u0302",
    "greek": "Καλημέρα κόσμε",
    "cyrillic": "Привет, мир",
    "armenian": "Բարև աշխարհ",
    "georgian": "გამარჯობა მსოფლიო",
    "hebrew": "שלום עולם 2024 בבוקר",
    "hebrew-niqqud": "שָׁלוֹם עוֹלָם",
    "hebrew-brackets": "הספר (כרך א) נמכר",
    "arabic": "مرحبا بالعالم ١٢٠ نص",
    "arabic-marks": "مُحَمَّدٌ رَسُولُ اللَّهِ",
    "arabic-brackets": "مرحبا بالعالم [نص]",
    "syriac": "ܫܠܡܐ ܥܠܡܐ",
    "thaana": "ހެލޯ ވޯލްޑް",
    "nko": "ߊߟߎ ߞߊ߲",
    "adlam": "𞤀𞤣𞤤𞤢𞤥 𞤄𞤢",
    "devanagari": "नमस्ते दुनिया",
    "bengali": "নমস্কার বিশ্ব",
    "gurmukhi": "ਸਤਿ ਸ੍ਰੀ ਅਕਾਲ",
    "gujarati": "નમસ્તે દુનિયા",
    "oriya": "ନମସ୍କାର ବିଶ୍ୱ",
    "tamil": "வணக்கம் உலகம் கொண்டு",
    "telugu": "నమస్కారం ప్రపంచం",
    "kannada": "ನಮಸ್ಕಾರ ಜಗತ್ತು",
    "malayalam": "നമസ്കാരം ലോകം",
    "sinhala": "ආයුබෝවන් ලෝකය",
    "thai": "สวัสดีครับ ชาวโลก",
    "thai-marks": "น้ำตาล ทั่วประเทศ ใช้ไป",
    "lao": "ສະບາຍດີ ໂລກ",
    "khmer": "សួស្តី ពិភពលោក",
    "myanmar": "မင်္ဂလာပါ ကမ္ဘာ",
    "ethiopic": "ሰላም ለዓለም",
    "cherokee": "ᎣᏏᏲ ᏂᎦᏓ",
    "tifinagh": "ⴰⵣⵓⵍ ⴰⵎⴰⴹⴰⵍ",
    "mongolian": "ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ",
    "chinese": "你好，世界。中文测试",
    "japanese": "こんにちは、世界。カタカナ",
    "korean": "안녕하세요 세계",
    "emoji": "A 😀 B",
    "emoji-mixed": "Emoji 😀 here 👍🏽 and 🇫🇷",
}


def one_line(text: str, size: int = 28) -> dict[str, object]:
    """A template of one line of ``text`` on white, as wide as any line above needs."""
    layer = {"type": "text", "name": "line", "x": 10, "y": 10, "width": 880, "height": 60, "text": text, "size": size}
    return {"name": "line", "width": 900, "height": 80, "background": "#ffffff", "layers": [layer]}


def all_lines(size: int = 24) -> dict[str, object]:
    """A template of every line above, one under the other."""
    layers = [
        {"type": "text", "name": name, "x": 10, "y": 8 + 40 * index, "width": 880, "height": 36, "text": text}
        | {"size": size}
        for index, (name, text) in enumerate(SCRIPT_LINES.items())
    ]
    return {"name": "scripts", "width": 900, "height": 16 + 40 * len(layers), "background": "#ffffff", "layers": layers}
