#!/usr/bin/perl
# Writes a GNU ld version script for an OpenSSL shared library from its
# ordinals file (util/libcrypto.num, util/libssl.num).  The source tree we
# build from ships without the generator OpenSSL's Makefile expects at
# util/mkdef.pl, so the bootstrap installs this one in its place.
#
# Ordinals lines: NAME  NUMBER  VERSION  STATUS:PLATFORMS:KIND:FEATURES
# Each VERSION (3_0_0, 3_0_3, ...) becomes a node OPENSSL_3.0.0 { ... }
# inheriting from the previous one, so the symbol versions match those of
# the distribution's libssl.so.3/libcrypto.so.3 (same ABI, same soname).
use strict;
use warnings;
use Getopt::Long;

my ($type, $ordinals, $name, $os, $version) = ('lib', undef, undef, 'linux', undef);
GetOptions('type=s' => \$type, 'ordinals=s' => \$ordinals, 'name=s' => \$name,
           'OS=s' => \$os, 'version=s' => \$version) or die "mkdef.pl: bad arguments\n";

# Modules (engines, providers) export their entry points only.
if ($type ne 'lib') {
    print "{\n    global: *;\n};\n";
    exit 0;
}
die "mkdef.pl: --ordinals is required\n" unless defined $ordinals;

my %by_version;
open(my $fh, '<', $ordinals) or die "mkdef.pl: $ordinals: $!\n";
while (my $line = <$fh>) {
    next if $line =~ /^\s*(#|$)/;
    my ($sym, $num, $ver, $info) = split /\s+/, $line;
    next unless defined $info;
    my ($status, $platforms) = split /:/, $info;
    next unless $status eq 'EXIST';
    # A platform list naming only other systems (e.g. "VMS") excludes us;
    # negated entries ("!VMS") keep the symbol.
    if ($platforms ne '') {
        my @plats = split /,/, $platforms;
        my @positive = grep { !/^!/ } @plats;
        next if @positive && !grep { lc($_) eq lc($os) || $_ eq 'UNIX' } @positive;
        next if grep { lc($_) eq '!' . lc($os) || $_ eq '!UNIX' } @plats;
    }
    push @{ $by_version{$ver} }, $sym;
}
close $fh;

sub vkey { my @p = split /_/, shift; return sprintf('%05d%05d%05d', @p[0..2]); }
my @versions = sort { vkey($a) cmp vkey($b) } keys %by_version;
my $previous;
for my $i (0 .. $#versions) {
    (my $label = $versions[$i]) =~ tr/_/./;
    print "OPENSSL_$label {\n    global:\n";
    print "        $_;\n" for sort @{ $by_version{$versions[$i]} };
    print "    local: *;\n" if $i == 0;
    print "}", (defined $previous ? " $previous" : ''), ";\n\n";
    $previous = "OPENSSL_$label";
}
