my %cnt; my %pair; my $prev = "";
open(my $f, "<", "text.txt") or die;
while (my $line = <$f>) { for my $w (split ' ', $line) { $cnt{$w}++; $pair{"$prev $w"}++ if length($w) % 4 == 0; $prev = $w; } }
my @keys = keys %cnt; my %byfirst;
for my $k (@keys) { push @{$byfirst{substr($k, 0, 2)}}, $k; }
my $n = 0; for my $p (keys %pair) { $n += $pair{$p} if exists $cnt{(split ' ', $p)[1] // ""}; }
my @top = (sort { $cnt{$b} <=> $cnt{$a} || $a cmp $b } @keys)[0..9];
print scalar(@keys), " ", scalar(keys %byfirst), " $n @top[0..2]\n";
