"""Stage 5a, certification: profiles (which items a certificate covers), the certificate itself
(verdict, digests) and the certify and verify procedures. It writes JSON; the certificate's
HTML page belongs to :mod:`conformance.report`.
"""
