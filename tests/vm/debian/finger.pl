#!/usr/bin/perl
# A finger on a uinput touchscreen, for guests with no Python (the Debian
# kiosks: perl-base is Essential there, so this costs the root nothing).
# The same device as tests/vm/cases/touch_tools.py's "mt-b" kind made by
# spiral_tools.py finger: multitouch protocol B, INPUT_PROP_DIRECT, 10
# slots, ABS_X/Y and ABS_MT_POSITION_X/Y 0..32767, BTN_TOUCH.
#   finger.pl NAME WIDTH HEIGHT
# WIDTH x HEIGHT: the panel in pixels (rotation 0). Prints "created
# /dev/input/eventN", then reads commands from stdin, one a line, and
# prints "done LINE" after each:
#   down X Y      finger down (slot 0) at screen pixel (X, Y)
#   move X Y      the finger to (X, Y), then 40 ms of nothing (a finger
#                 moves; lines of moves are a trace)
#   up            the finger lifts
# At the end of stdin the device is destroyed. Screen pixels become device
# units by inverting chakra's TouchMapping exactly, as spiral_tools.py
# does: v = round(x * 32768 / WIDTH - 1/2), clamped to 0..32767.
# Raw ioctls on /dev/uinput (struct layouts of a 64-bit kernel: aarch64
# and x86_64 alike). Only perl's builtins: no module beyond strict and
# warnings, which perl-base has.
use strict;
use warnings;

my ($name, $width, $height) = @ARGV;
die "usage: finger.pl NAME WIDTH HEIGHT\n" unless defined $height && $width > 0 && $height > 0;
$| = 1;

my ($EV_SYN, $EV_KEY, $EV_ABS) = (0, 1, 3);
my $BTN_TOUCH = 0x14a;
my ($ABS_X, $ABS_Y, $ABS_MT_SLOT, $ABS_MT_POSITION_X, $ABS_MT_POSITION_Y, $ABS_MT_TRACKING_ID) =
    (0x00, 0x01, 0x2f, 0x35, 0x36, 0x39);
my $INPUT_PROP_DIRECT = 1;
my $BUS_VIRTUAL = 6;
my $MAX = 32767;

# _IOC(direction, 'U', number, size)
sub ioc { my ($dir, $nr, $size) = @_; return ($dir << 30) | ($size << 16) | (ord('U') << 8) | $nr }
my $UI_DEV_CREATE = ioc(0, 1, 0);
my $UI_DEV_DESTROY = ioc(0, 2, 0);
my $UI_DEV_SETUP = ioc(1, 3, 92);          # struct uinput_setup: input_id, name[80], ff_effects_max
my $UI_ABS_SETUP = ioc(1, 4, 28);          # struct uinput_abs_setup: code, pad, input_absinfo
my $UI_SET_EVBIT = ioc(1, 100, 4);
my $UI_SET_KEYBIT = ioc(1, 101, 4);
my $UI_SET_ABSBIT = ioc(1, 103, 4);
my $UI_SET_PROPBIT = ioc(1, 110, 4);
my $UI_GET_SYSNAME = ioc(2, 44, 64);

open(my $fd, '+<', '/dev/uinput') or die "finger.pl: /dev/uinput: $!\n";
binmode $fd;
sub control {
    my ($request, $argument, $what) = @_;
    ioctl($fd, $request, $argument) or die "finger.pl: $what: $!\n";
}
control($UI_SET_EVBIT, $EV_KEY, 'UI_SET_EVBIT EV_KEY');
control($UI_SET_KEYBIT, $BTN_TOUCH, 'UI_SET_KEYBIT BTN_TOUCH');
control($UI_SET_EVBIT, $EV_ABS, 'UI_SET_EVBIT EV_ABS');
for my $axis ([$ABS_X, $MAX], [$ABS_Y, $MAX], [$ABS_MT_SLOT, 9], [$ABS_MT_TRACKING_ID, 65535],
    [$ABS_MT_POSITION_X, $MAX], [$ABS_MT_POSITION_Y, $MAX]) {
    my ($code, $high) = @$axis;
    control($UI_SET_ABSBIT, $code, "UI_SET_ABSBIT $code");
    control($UI_ABS_SETUP, pack('S x2 l6', $code, 0, 0, $high, 0, 0, 0), "UI_ABS_SETUP $code");
}
control($UI_SET_PROPBIT, $INPUT_PROP_DIRECT, 'UI_SET_PROPBIT INPUT_PROP_DIRECT');
control($UI_DEV_SETUP, pack('S4 a80 L', $BUS_VIRTUAL, 0x1234, 0x5678, 1, $name, 0), 'UI_DEV_SETUP');
control($UI_DEV_CREATE, 0, 'UI_DEV_CREATE');
my $sysname = "\0" x 64;
ioctl($fd, $UI_GET_SYSNAME, $sysname) or die "finger.pl: UI_GET_SYSNAME: $!\n";
$sysname =~ s/\0.*//s;

# The event node: the kernel names it in sysfs; devtmpfs (and udev) make it.
my $node;
for (1 .. 200) {
    my ($event) = glob("/sys/devices/virtual/input/$sysname/event*");
    if ($event) {
        $event =~ s{.*/}{};
        if (-e "/dev/input/$event") { $node = "/dev/input/$event"; last }
    }
    select(undef, undef, undef, 0.05);
}
die "finger.pl: no event node for $sysname\n" unless $node;
print "created $node\n";

# struct input_event on a 64-bit kernel: timeval (two longs, which the
# kernel fills in), type, code, value.
sub emit {
    my $bytes = join '', map { pack('q q S S l', 0, 0, @$_) } @_;
    syswrite($fd, $bytes) == length($bytes) or die "finger.pl: write: $!\n";
}
sub nearest { my $v = shift; return $v >= 0 ? int($v + 0.5) : -int(-$v + 0.5) }
sub units {
    my ($x, $y) = @_;
    my @v = (nearest($x * ($MAX + 1) / $width - 0.5), nearest($y * ($MAX + 1) / $height - 0.5));
    return map { $_ < 0 ? 0 : $_ > $MAX ? $MAX : $_ } @v;
}
my $tracking = 0;
while (my $line = <STDIN>) {
    chomp $line;
    my ($verb, @args) = split ' ', $line;
    next unless defined $verb;
    if ($verb eq 'down') {
        my ($vx, $vy) = units(@args);
        $tracking++;
        emit([$EV_ABS, $ABS_MT_SLOT, 0], [$EV_ABS, $ABS_MT_TRACKING_ID, $tracking], [$EV_ABS, $ABS_MT_POSITION_X, $vx],
            [$EV_ABS, $ABS_MT_POSITION_Y, $vy], [$EV_ABS, $ABS_X, $vx], [$EV_ABS, $ABS_Y, $vy],
            [$EV_KEY, $BTN_TOUCH, 1], [$EV_SYN, 0, 0]);
    } elsif ($verb eq 'move') {
        my ($vx, $vy) = units(@args);
        emit([$EV_ABS, $ABS_MT_SLOT, 0], [$EV_ABS, $ABS_MT_POSITION_X, $vx], [$EV_ABS, $ABS_MT_POSITION_Y, $vy],
            [$EV_ABS, $ABS_X, $vx], [$EV_ABS, $ABS_Y, $vy], [$EV_SYN, 0, 0]);
        select(undef, undef, undef, 0.04);
    } elsif ($verb eq 'up') {
        emit([$EV_ABS, $ABS_MT_SLOT, 0], [$EV_ABS, $ABS_MT_TRACKING_ID, -1], [$EV_KEY, $BTN_TOUCH, 0], [$EV_SYN, 0, 0]);
    } else {
        die "finger.pl: unknown command '$line'\n";
    }
    print "done $line\n";
}
ioctl($fd, $UI_DEV_DESTROY, 0);
